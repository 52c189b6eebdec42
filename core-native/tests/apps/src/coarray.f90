! coarray.f90 - OpenCoarrays (caf): a 1-D heat rod split over the images; every step each image reads
! its neighbours' edge cells through coarrays (one-sided gets), syncs, updates, and every 500 steps a
! co_sum of the rod's heat is printed by image 1. At the end: "done: steps=N heat H".  (40,000 steps: with
! 6,000 a quiet machine ended the run before the checkpoint asked at step 2000 came.)
program coarray_heat
  implicit none
  integer, parameter :: n = 20000, steps = 40000
  real(8) :: u(0:n+1)[*], v(n), heat
  integer :: me, np, s, i
  me = this_image(); np = num_images()
  do i = 1, n
     u(i) = sin(real(i + (me - 1) * n, 8) * 1d-3) + 1d0
  end do
  u(0) = 0; u(n+1) = 0
  sync all
  do s = 1, steps
     if (me > 1) u(0) = u(n)[me - 1]
     if (me < np) u(n+1) = u(1)[me + 1]
     sync all
     do i = 1, n
        v(i) = u(i) + 0.25d0 * (u(i-1) - 2d0 * u(i) + u(i+1))
     end do
     ! (the update before the second sync: a neighbour's next get must see it; with the update after
     ! that sync the gets raced with it, and Open MPI's results varied from run to run, natively)
     u(1:n) = v
     sync all
     if (mod(s, 500) == 0) then
        heat = sum(u(1:n))
        call co_sum(heat)
        if (me == 1) then
           write (*, '(a, i0, a, es24.17)') 'step ', s, ' heat ', heat
           flush (6)
        end if
     end if
  end do
  heat = sum(u(1:n))
  call co_sum(heat)
  if (me == 1) write (*, '(a, i0, a, es24.17)') 'done: steps=', steps, ' heat ', heat
end program coarray_heat
