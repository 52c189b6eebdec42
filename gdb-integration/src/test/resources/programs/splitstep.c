/* The shared library of the test program: one step of its computation. */
long split_step(long acc, long i)
{
    long next = acc * 31 + i;   /* split_step body */
    return next;
}
