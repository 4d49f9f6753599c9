/* prog.c: a tiny program whose call sites perfweave's symbolization tests resolve.
 * collective() stands in for MPI_Alltoallv; the stacks of its three call sites are
 * written in the collective profiler's backtrace format under results/ (see README.md). */
#include <stdio.h>

int collective(int n) { return n * 2; }

int exchange_halo(int step)
{
    int r = collective(step);
    return r + 1;
}

/* a local (static) function with two call sites of the collective */
static int transpose(int step)
{
    int a = collective(step);
    int b = collective(step + 1);
    return a + b;
}

int solve(int steps)
{
    int total = 0;
    for (int s = 0; s < steps; s++) {
        total += exchange_halo(s);
        total += transpose(s);
    }
    return total;
}

int main(void)
{
    printf("%d\n", solve(3));
    return 0;
}
