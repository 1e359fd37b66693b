// oracle-check: {"launch": {"grid": [1], "args": {}}, "seed": 1}
// Written for the oracle check (not compiler output). A vector op over
// min(max(n - 40, 0), 64) f32, n a scalar argument the launch does not give
// (the check's worlds draw it in [1, 40]: the tile is empty). The extractor
// estimates the tile from its upper bound (64 f32, 1 repeat); its block total
// of issued instructions is then an estimate as well and must say so
// (total_reasons.issued_instructions): it was written as an exact 1 where the
// execution issues none. Found on chunk_kda's hivm.hir.copy at line 1396
// (tile [%65, 32], %65 from loaded data) under the scaled-down launch.
func.func @estimated_issue(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: i32, %arg2: i32, %arg3: i32, %arg4: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %g0 = arith.muli %arg2, %arg3 : i32
  %g1 = arith.muli %g0, %arg4 : i32
  annotation.mark %g1 {logical_block_num} : i32
  %x = arith.index_cast %arg1 : i32 to index
  %y = affine.max affine_map<()[s0] -> (s0 - 40, 0)>()[%x]
  %m = affine.min affine_map<()[s0] -> (s0, 64)>()[%y]
  %c0_i64 = arith.constant 0 : i64
  %ub = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  %sv = memref.subview %ub[0] [%m] [1] : memref<64xf32, #hivm.address_space<ub>> to memref<?xf32, strided<[1]>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%sv : memref<?xf32, strided<[1]>, #hivm.address_space<ub>>) outs(%sv : memref<?xf32, strided<[1]>, #hivm.address_space<ub>>)
  return
}
