// oracle-check: {"launch": {"grid": [3], "args": {}}, "seed": 1}
// Written for the oracle check (not compiler output). A vector op over a tile
// whose size depends on the block: 0, 32 and 64 f32 in blocks 0, 1, 2, i.e.
// 0, 1 and 1 repeats of 256 B. docs/extract_hivm.md §5 issues ceil(repeats / 255)
// vector instructions per execution: 0, 1, 1 -- per-block minimum 0, grid 2.
// The extractor counted at least one per execution (1, grid 3) in
// block_min.issued_instructions, a strict member. Found by generated program
// seed 2 (a vcmp over a subview of a block-dependent size).
func.func @zero_repeats(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: i32, %arg2: i32, %arg3: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %g0 = arith.muli %arg1, %arg2 : i32
  %g1 = arith.muli %g0, %arg3 : i32
  annotation.mark %g1 {logical_block_num} : i32
  %b = hivm.hir.get_block_idx -> i64
  %bid = arith.index_cast %b : i64 to index
  %c0_i64 = arith.constant 0 : i64
  %ub = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  %n = affine.apply affine_map<()[s0] -> (s0 * 32)>()[%bid]
  %sv = memref.subview %ub[0] [%n] [1] : memref<64xf32, #hivm.address_space<ub>> to memref<?xf32, strided<[1]>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%sv : memref<?xf32, strided<[1]>, #hivm.address_space<ub>>) outs(%sv : memref<?xf32, strided<[1]>, #hivm.address_space<ub>>)
  return
}
