// oracle-check: {"launch": {"grid": [3], "args": {"1": 40}}, "seed": 1}
// Written for the oracle check (not compiler output). Each block loads a tile of
// min(16, n - 16 b) f32 (n = 40, Triton argument 1): 16, 16 and 8 elements, so the fewest bytes any
// block moves is 32. totals.per_block_min (strict, docs/extract_hivm.md §8) took
// count.min x the representative execution's bytes (block 0's 64) instead of the
// record's block_min (32); likewise for vector repeats and FLOP. Found by
// generated program seed 5247 (vector repeats of a vexp over a tile whose size
// varies with the loop) and, once the check compared DMA totals too, on the
// bundled vector_add with a tail block.
func.func @tail(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xf32, #hivm.address_space<gm>>, %arg2: i32, %arg3: i32, %arg4: i32, %arg5: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %g0 = arith.muli %arg3, %arg4 : i32
  %g1 = arith.muli %g0, %arg5 : i32
  annotation.mark %g1 {logical_block_num} : i32
  %b = hivm.hir.get_block_idx -> i64
  %bid = arith.index_cast %b : i64 to index
  %n = arith.index_cast %arg2 : i32 to index
  %off = affine.apply affine_map<()[s0] -> (s0 * 16)>()[%bid]
  %size = affine.min affine_map<()[s0, s1] -> (16, s0 - s1)>()[%n, %off]
  %gm = memref.reinterpret_cast %arg1 to offset: [%off], sizes: [16], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<16xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %gs = memref.subview %gm[0] [%size] [1] : memref<16xf32, strided<[1], offset: ?>, #hivm.address_space<gm>> to memref<?xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %c0_i64 = arith.constant 0 : i64
  %ub = hivm.hir.pointer_cast(%c0_i64) : memref<16xf32, #hivm.address_space<ub>>
  %us = memref.subview %ub[0] [%size] [1] : memref<16xf32, #hivm.address_space<ub>> to memref<?xf32, strided<[1]>, #hivm.address_space<ub>>
  hivm.hir.load ins(%gs : memref<?xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%us : memref<?xf32, strided<[1]>, #hivm.address_space<ub>>)
  hivm.hir.vexp ins(%us : memref<?xf32, strided<[1]>, #hivm.address_space<ub>>) outs(%us : memref<?xf32, strided<[1]>, #hivm.address_space<ub>>)
  return
}
