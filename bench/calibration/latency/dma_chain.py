# dma_chain.py - a chain of small DMAs, each waiting for the one before it.
#
# Calibrates `dma_completion_latency` (docs/model.md §3.6): the time from the
# issue of a small GM->UB DMA to the release of the wait_flag that the next
# dependent DMA waits on. One program (one AIV); each iteration loads an
# 8-element tile whose position comes from the tile loaded before it, so no
# two loads can overlap and each iteration is one DMA completion on the
# kernel's critical path. Launch lengths N = 64 ... 1024: the slope of the
# fastest launch against N is the latency per event; the intercept (launch,
# the first load, the final store) drops out.
#
#   python3 dma_chain.py --n 256            # one launch size, 45 launches
#   bash run.sh                             # every size under msprof
#
# Check the chain before trusting the figure: dump the kernel's HIVM
# (TRITON_DEBUG=1, kernel.npuir.mlir) and run
#   perfbound run pipelines/bound_hivm.toml --set hivm=kernel.npuir.mlir \
#       --set 'launch={grid=[1],args={"2"=N}}' --format json
# the critical_path term's dma_on_path_per_block must be N (+ a constant):
# the spec's x is that count.
import argparse

import torch
import triton
import triton.language as tl


@triton.jit
def dma_chain(table_ptr, out_ptr, n, TILE: tl.constexpr):
    offs = tl.arange(0, TILE)
    nxt = tl.load(table_ptr + offs)
    position = tl.sum(tl.where(offs == 0, nxt, 0))
    for _ in range(n):
        # The address of the next tile is the first element of this one.
        tile = tl.load(table_ptr + position * TILE + offs)
        position = tl.sum(tl.where(offs == 0, tile, 0))
    tl.store(out_ptr + offs, tl.zeros([TILE], tl.int32) + position)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, required=True, help="dependent DMAs per launch")
    parser.add_argument("--launches", type=int, default=45)
    args = parser.parse_args()
    tile = 8
    slots = 4096
    # A random cycle through the table, so the DMA engine cannot guess.
    order = torch.randperm(slots)
    table = torch.zeros(slots * tile, dtype=torch.int32)
    for idx in range(slots):
        table[order[idx] * tile] = order[(idx + 1) % slots]
    table = table.npu()
    out = torch.empty(tile, dtype=torch.int32).npu()
    for _ in range(args.launches):
        dma_chain[(1,)](table, out, args.n, TILE=tile)
    torch.npu.synchronize()


if __name__ == "__main__":
    main()
