// oracle-check: {"launch": {"grid": [2], "args": {}}, "seed": 1}
// Written for the oracle check (not compiler output). A vector op over a tile of
// min(block x n, 64) f32, n a scalar argument the launch does not give: the
// extractor only knows the size's upper bound (64, an estimate), and block 0's
// tile is empty whatever n is. docs/extract_hivm.md §5 issues ceil(repeats / 255)
// instructions, none for an empty tile, so no instruction of this op is
// guaranteed in every block; the extractor's block_min.issued_instructions
// counted one per execution for an estimated repeat count. Found by generated
// program seed 45 (a vbrc over [min(n, 8), block] f32).
func.func @estimated_empty(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: i32, %arg2: i32, %arg3: i32, %arg4: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %g0 = arith.muli %arg2, %arg3 : i32
  %g1 = arith.muli %g0, %arg4 : i32
  annotation.mark %g1 {logical_block_num} : i32
  %b = hivm.hir.get_block_idx -> i64
  %bid = arith.index_cast %b : i64 to index
  %x = arith.index_cast %arg1 : i32 to index
  %n = arith.muli %bid, %x : index
  %m = affine.min affine_map<()[s0] -> (s0, 64)>()[%n]
  %c0_i64 = arith.constant 0 : i64
  %ub = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  %sv = memref.subview %ub[0] [%m] [1] : memref<64xf32, #hivm.address_space<ub>> to memref<?xf32, strided<[1]>, #hivm.address_space<ub>>
  hivm.hir.vexp ins(%sv : memref<?xf32, strided<[1]>, #hivm.address_space<ub>>) outs(%sv : memref<?xf32, strided<[1]>, #hivm.address_space<ub>>)
  return
}
