# barrier_chain.py - a chain of pipe_barrier[PIPE_ALL] between tiny ops.
#
# Calibrates `pipe_barrier_all_latency` (docs/model.md §3.6): the turnaround
# of one PIPE_ALL when almost nothing is in flight. One program (one AIV);
# each iteration adds 1 to a 64-element tile that stays in UB and fences it
# with tl.debug_barrier(), which triton-ascend lowers to a PIPE_ALL barrier
# (check the dump: `hivm.hir.pipe_barrier[<PIPE_ALL>]` inside the loop).
# The slope of the fastest launch against N is the latency per barrier.
#
#   python3 barrier_chain.py --n 256
#   bash run.sh
#
# Check: the critical_path term's pipe_all_barriers_per_block on the
# kernel's own dump must be N (+ a constant): the spec's x is that count.
import argparse

import torch
import triton
import triton.language as tl


@triton.jit
def barrier_chain(x_ptr, n, TILE: tl.constexpr):
    offs = tl.arange(0, TILE)
    tile = tl.load(x_ptr + offs)
    for _ in range(n):
        tile = tile + 1.0
        tl.debug_barrier()
    tl.store(x_ptr + offs, tile)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, required=True, help="barriers per launch")
    parser.add_argument("--launches", type=int, default=45)
    args = parser.parse_args()
    x = torch.zeros(64, dtype=torch.float32).npu()
    for _ in range(args.launches):
        barrier_chain[(1,)](x, args.n, TILE=64)
    torch.npu.synchronize()


if __name__ == "__main__":
    main()
