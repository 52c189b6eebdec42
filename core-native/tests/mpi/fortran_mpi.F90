! fortran_mpi.F90 - a Fortran MPI program for checkpoint/restart, built three times, once per binding:
!   -DMT_BINDING=1  include 'mpif.h'      (fortran_mpif)
!   -DMT_BINDING=2  use mpi               (fortran_usempi)
!   -DMT_BINDING=3  use mpi_f08           (fortran_f08)
! The protocol is mpitest.h's: --stop-file F | --iters K; rank 0 says "ready" after the first
! iteration; every iteration agrees on stopping through one MPI_Allreduce; rank 0 ends with one line
! "NAME done: iters=K ranks=N checksum=X" that depends only on K (cr_mpi.sh compares it with a native run).
! Each iteration goes through what the Fortran layers translate (tests/mpi/CMakeLists.txt runs it under
! both MPIs, checkpointed, killed and restarted):
!   point to point: Isend/Irecv + Waitall(MPI_STATUSES_IGNORE), Sendrecv with a status (source, tag,
!     MPI_Get_count), Recv with MPI_STATUS_IGNORE, a Test loop, persistent requests made before the
!     checkpoint and started again after it (Open MPI hands their Fortran handles back out of the C object);
!   collectives: Allreduce, Allreduce/Allgather/Reduce with MPI_IN_PLACE, Bcast, Alltoallw (sized from
!     the communicator by the Fortran layer), Gather; a user op written in Fortran (made before the
!     checkpoint; Open MPI calls it with the datatype as a Fortran handle);
!   derived types: a strided vector, a struct of absolute addresses sent and received at MPI_BOTTOM,
!     a contiguous type made and freed every iteration, MPI_Type_match_size's type;
!   communicators: a split (made before the checkpoint, named with MPI_Comm_set_name), a dup of it
!     made and freed every iteration; MPI_Comm_get_attr(MPI_TAG_UB).
#if MT_BINDING == 1
#define MT_NAME 'fortran_mpif'
#elif MT_BINDING == 2
#define MT_NAME 'fortran_usempi'
#else
#define MT_NAME 'fortran_f08'
#endif
#if MT_BINDING == 3
#define T_COMM type(MPI_Comm)
#define T_TYPE type(MPI_Datatype)
#define T_REQ type(MPI_Request)
#define T_OP type(MPI_Op)
#define ST_SOURCE(s) s%MPI_SOURCE
#define ST_TAG(s) s%MPI_TAG
#else
#define T_COMM integer
#define T_TYPE integer
#define T_REQ integer
#define T_OP integer
#define ST_SOURCE(s) s(MPI_SOURCE)
#define ST_TAG(s) s(MPI_TAG)
#endif

program fortran_mpi
#if MT_BINDING == 2
  use mpi
#elif MT_BINDING == 3
  use mpi_f08
#endif
  use, intrinsic :: iso_fortran_env, only: output_unit
  implicit none
#if MT_BINDING == 1
  include 'mpif.h'
#endif
  integer, parameter :: NX = 6, NY = 5, NV = 16
  integer, parameter :: P = 2147483647
#if MT_BINDING == 3
  type(MPI_Status) :: st, sts(2)
#else
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
#endif
  T_COMM :: world, half, dup
  T_TYPE :: rowtype, abs_send, abs_recv, contig, rtype
  T_TYPE :: stypes(2)
  T_TYPE, allocatable :: wtypes(:)
  T_REQ :: reqs(2), preq(2), treq
  T_OP :: xop
#if MT_BINDING == 3
  procedure(MPI_User_function) :: mt_xsum
#else
  external :: mt_xsum
#endif
  integer :: rank, np, ierr, hrank, hsize, right, left, partner, cnt, k, nlen, root
  integer :: blens(2)
  integer, allocatable :: wcounts(:), wdispls(:)
  integer(kind=MPI_ADDRESS_KIND) :: disp(2), tagub
  integer(8) :: h, sendv(NV), red(4), allv(64), one
  ! written by MPI between calls that do not name them (nonblocking, persistent): volatile
  integer(8), volatile :: recvv(NV), psend(NV), precv(NV)
  integer(8), allocatable :: wsend(:), wrecv(:), hs(:)
  integer(8) :: grid(NX, NY), row(NY)
  integer(8), volatile :: pa(3), qa(3)
  real(8), volatile :: pb(2), qb(2)
  real(8) :: x, y
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  character(len=512) :: arg, stop_file
  character(len=200) :: line
  integer :: iters, it, stop_at, want_stop, all_stop, extra, ios, u
  logical :: fixed, exists

  call MPI_Init(ierr)
  world = MPI_COMM_WORLD
  call MPI_Comm_rank(world, rank, ierr)
  call MPI_Comm_size(world, np, ierr)
  ! the protocol's arguments
  fixed = .false.
  iters = 0
  stop_file = ''
  call get_command_argument(1, arg)
  if (trim(arg) == '--stop-file') then
    call get_command_argument(2, stop_file)
  else if (trim(arg) == '--iters') then
    fixed = .true.
    call get_command_argument(2, arg)
    read (arg, *) iters
  else
    if (rank == 0) write (*, '(a)') 'usage: PROGRAM --stop-file F | --iters K'
    call MPI_Abort(world, 2, ierr)
  end if
  right = mod(rank + 1, np)
  left = mod(rank + np - 1, np)

  ! made before the checkpoint: replayed by a restart
  call MPI_Comm_split(world, mod(rank, 2), -rank, half, ierr)
  call MPI_Comm_rank(half, hrank, ierr)
  call MPI_Comm_size(half, hsize, ierr)
  write (cname, '(a,i0)') 'half-', mod(rank, 2)
  call MPI_Comm_set_name(half, cname, ierr)
  call MPI_Type_vector(NY, 1, NX, MPI_INTEGER8, rowtype, ierr)
  call MPI_Type_commit(rowtype, ierr)
  blens = (/ 3, 2 /)
  stypes(1) = MPI_INTEGER8
  stypes(2) = MPI_DOUBLE_PRECISION
  call MPI_Get_address(pa, disp(1), ierr)
  call MPI_Get_address(pb, disp(2), ierr)
  call MPI_Type_create_struct(2, blens, disp, stypes, abs_send, ierr)
  call MPI_Type_commit(abs_send, ierr)
  call MPI_Get_address(qa, disp(1), ierr)
  call MPI_Get_address(qb, disp(2), ierr)
  call MPI_Type_create_struct(2, blens, disp, stypes, abs_recv, ierr)
  call MPI_Type_commit(abs_recv, ierr)
  call MPI_Op_create(mt_xsum, .true., xop, ierr)  ! mana-lint: ignore MPI_Op_create (one op: far below the limit)
  call MPI_Send_init(psend, NV, MPI_INTEGER8, right, 21, world, preq(1), ierr)
  call MPI_Recv_init(precv, NV, MPI_INTEGER8, left, 21, world, preq(2), ierr)
  allocate (wtypes(np), wcounts(np), wdispls(np), wsend(np), wrecv(np), hs(np))
  do k = 1, np
    wtypes(k) = MPI_INTEGER8
    wcounts(k) = 1
    wdispls(k) = (k - 1) * 8
  end do
  do k = 1, NY
    grid(:, k) = int(rank * 100 + k, 8)
  end do

  h = 17
  it = 0
  stop_at = -1
  do
    it = it + 1
    do k = 1, NV
      sendv(k) = int(it, 8) * 1000 + rank * 10 + k
    end do

    ! point to point: a ring, nonblocking, statuses ignored
    call MPI_Irecv(recvv, NV, MPI_INTEGER8, left, 1, world, reqs(1), ierr)
    call MPI_Isend(sendv, NV, MPI_INTEGER8, right, 1, world, reqs(2), ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    call fold_array(recvv, NV)
    ! ... with a status: source, tag, count
    call MPI_Sendrecv(sendv, NV, MPI_INTEGER8, right, mod(it, 100), recvv, NV, MPI_INTEGER8, left, &
                      MPI_ANY_TAG, world, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER8, cnt, ierr)
    if (ST_SOURCE(st) /= left .or. ST_TAG(st) /= mod(it, 100) .or. cnt /= NV) &
      call fail('Sendrecv status')
    call fold_array(recvv, NV)
    ! ... blocking pairs, status ignored, and a Test loop
    partner = ieor(rank, 1)
    if (partner < np) then
      if (mod(rank, 2) == 0) then
        call MPI_Send(sendv, 4, MPI_INTEGER8, partner, 2, world, ierr)
        call MPI_Recv(recvv, 4, MPI_INTEGER8, partner, 2, world, MPI_STATUS_IGNORE, ierr)
      else
        call MPI_Recv(recvv, 4, MPI_INTEGER8, partner, 2, world, MPI_STATUS_IGNORE, ierr)
        call MPI_Send(sendv, 4, MPI_INTEGER8, partner, 2, world, ierr)
      end if
      call fold_array(recvv, 4)
      call MPI_Irecv(recvv, 2, MPI_INTEGER8, partner, 3, world, treq, ierr)
      call MPI_Send(sendv(5), 2, MPI_INTEGER8, partner, 3, world, ierr)
      do
        call MPI_Test(treq, flag, st, ierr)
        if (flag) exit
      end do
      if (ST_SOURCE(st) /= partner .or. ST_TAG(st) /= 3) call fail('Test status')
      call fold_array(recvv, 2)
    end if
    ! ... persistent requests, made before the checkpoint
    psend = sendv + 7
    call MPI_Startall(2, preq, ierr)
    call MPI_Waitall(2, preq, sts, ierr)
    call fold_array(precv, NV)

    ! collectives, MPI_IN_PLACE among them
    red = (/ int(rank, 8), int(it, 8), int(rank * it, 8), 1_8 /)
    call MPI_Allreduce(MPI_IN_PLACE, red, 4, MPI_INTEGER8, MPI_SUM, world, ierr)
    if (red(4) /= np) call fail('Allreduce in place')
    call fold_array(red, 4)
    one = int(rank + it, 8)
    root = mod(it, np)
    if (rank == root) then
      allv(1) = one
      call MPI_Reduce(MPI_IN_PLACE, allv, 1, MPI_INTEGER8, MPI_MAX, root, world, ierr)
      call fold(allv(1))
    else
      call MPI_Reduce(one, allv, 1, MPI_INTEGER8, MPI_MAX, root, world, ierr)
    end if
    allv(rank + 1) = one * 3
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, allv, 1, MPI_INTEGER8, world, ierr)
    call fold_array(allv, np)
    ! a user op written in Fortran (it checks the datatype it is given: a Fortran handle)
    red = (/ int(rank + it, 8), 5_8, 0_8, 0_8 /)
    call MPI_Allreduce(MPI_IN_PLACE, red, 2, MPI_INTEGER8, xop, world, ierr)
    if (red(2) /= 6 * np - 1) call fail('user op (or the datatype it was given)')
    call fold_array(red, 2)
    call MPI_Bcast(sendv, 3, MPI_INTEGER8, root, world, ierr)
    call fold_array(sendv, 3)
    do k = 1, np
      wsend(k) = int(rank * 1000 + k + it, 8)
    end do
    call MPI_Alltoallw(wsend, wcounts, wdispls, wtypes, wrecv, wcounts, wdispls, wtypes, world, ierr)
    call fold_array(wrecv, np)

    ! derived types: a row of the grid (strided), a struct at MPI_BOTTOM, a contiguous type for now
    grid(1, :) = grid(1, :) + it
    call MPI_Sendrecv(grid, 1, rowtype, right, 4, row, NY, MPI_INTEGER8, left, 4, world, MPI_STATUS_IGNORE, ierr)
    grid(2, :) = row
    call fold_array(row, NY)
    pa = (/ int(it, 8), int(rank, 8), int(it * rank, 8) /)
    pb = (/ real(it, 8) * 0.5d0, real(rank, 8) /)
    call MPI_Sendrecv(MPI_BOTTOM, 1, abs_send, right, 5, MPI_BOTTOM, 1, abs_recv, left, 5, world, st, ierr)
    if (qa(2) /= left .or. qb(2) /= real(left, 8)) call fail('struct at MPI_BOTTOM')
    call fold(qa(1) + qa(3) + int(qb(1) * 2, 8))
    call MPI_Type_contiguous(2, MPI_INTEGER8, contig, ierr)
    call MPI_Type_commit(contig, ierr)
    call MPI_Sendrecv(sendv, 2, contig, right, 6, recvv, 2, contig, left, 6, world, MPI_STATUS_IGNORE, ierr)
    call MPI_Type_free(contig, ierr)
    call fold_array(recvv, 4)
    call MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, rtype, ierr)
    x = real(rank + it, 8)
    call MPI_Allreduce(x, y, 1, rtype, MPI_SUM, world, ierr)
    call fold(int(y, 8))

    ! communicators: the split, a dup of it for this iteration, a name, an attribute
    one = int(hrank + it, 8)
    call MPI_Allreduce(MPI_IN_PLACE, one, 1, MPI_INTEGER8, MPI_SUM, half, ierr)
    call fold(one)
    call MPI_Comm_dup(half, dup, ierr)
    one = int(it, 8)
    call MPI_Bcast(one, 1, MPI_INTEGER8, hsize - 1, dup, ierr)
    call MPI_Comm_free(dup, ierr)
    call fold(one)
    call MPI_Comm_get_name(half, cname, nlen, ierr)
    if (nlen /= 6 .or. cname(1:5) /= 'half-') call fail('MPI_Comm_get_name')
    call MPI_Comm_get_attr(world, MPI_TAG_UB, tagub, flag, ierr)
    if (.not. flag .or. tagub < 32767) call fail('MPI_TAG_UB')

    ! stop when told (mpitest.h's mt_done)
    want_stop = 0
    if (rank == 0) then
      if (fixed) then
        if (it >= iters) want_stop = 1
      else
        if (it == 1) call say('ready')
        if (stop_at < 0) then
          inquire (file=trim(stop_file), exist=exists)
          if (exists) then
            extra = 0
            open (newunit=u, file=trim(stop_file), status='old', action='read', iostat=ios)
            if (ios == 0) then
              read (u, *, iostat=ios) extra
              if (ios /= 0) extra = 0
              close (u)
            end if
            stop_at = it + extra
          end if
        end if
        if (stop_at >= 0 .and. it >= stop_at) want_stop = 1
      end if
    end if
    call MPI_Allreduce(want_stop, all_stop, 1, MPI_INTEGER, MPI_MAX, world, ierr)
    if (all_stop /= 0) exit
  end do

  call MPI_Op_free(xop, ierr)
  call MPI_Request_free(preq(1), ierr)
  call MPI_Request_free(preq(2), ierr)
  call MPI_Type_free(rowtype, ierr)
  call MPI_Type_free(abs_send, ierr)
  call MPI_Type_free(abs_recv, ierr)
  call MPI_Comm_free(half, ierr)
  call MPI_Gather(h, 1, MPI_INTEGER8, hs, 1, MPI_INTEGER8, 0, world, ierr)
  if (rank == 0) then
    h = 17
    do k = 1, np
      call fold(hs(k))
    end do
    write (line, '(a,a,i0,a,i0,a,i0)') MT_NAME, ' done: iters=', it, ' ranks=', np, ' checksum=', h
    call say(trim(line))
  end if
  call MPI_Finalize(ierr)

contains

  subroutine fold(v)
    integer(8), intent(in) :: v
    h = modulo(h * 1000003_8 + modulo(v, int(P, 8)), int(P, 8))
  end subroutine fold

  subroutine fold_array(a, n)
    integer, intent(in) :: n
    integer(8), intent(in) :: a(n)
    integer :: i
    do i = 1, n
      call fold(a(i))
    end do
  end subroutine fold_array

  subroutine say(text)
    character(len=*), intent(in) :: text
    write (output_unit, '(a)') text
    flush (output_unit)
  end subroutine say

  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: e
    call say('FAIL: ' // what)
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail

end program fortran_mpi

! The user op: inout = in + inout + 1 (commutative and associative: n values give their sum + n - 1),
! and a value no sum gives when the datatype handed over is not MPI_INTEGER8.
#if MT_BINDING == 3
subroutine mt_xsum(invec, inoutvec, len, dtype)
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  type(c_ptr), value :: invec, inoutvec
  integer :: len
  type(MPI_Datatype) :: dtype
  integer(8), pointer :: a(:), b(:)
  call c_f_pointer(invec, a, (/ len /))
  call c_f_pointer(inoutvec, b, (/ len /))
  if (dtype /= MPI_INTEGER8) then
    b = -1
  else
    b = a + b + 1
  end if
end subroutine mt_xsum
#else
subroutine mt_xsum(invec, inoutvec, len, dtype)
#if MT_BINDING == 2
  use mpi
#endif
  implicit none
#if MT_BINDING == 1
  include 'mpif.h'
#endif
  integer :: len, dtype
  integer(8) :: invec(len), inoutvec(len)
  if (dtype /= MPI_INTEGER8) then
    inoutvec = -1
  else
    inoutvec = invec + inoutvec + 1
  end if
end subroutine mt_xsum
#endif
