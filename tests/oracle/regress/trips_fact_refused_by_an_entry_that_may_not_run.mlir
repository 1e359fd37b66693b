// oracle-check: {"launch": {"grid": [2], "args": {}, "trips": {"26": {"min": 7}}}, "index_data": {"0": [1, 0]}, "seed": 1}
// Written for the oracle check (not compiler output). Block b loads n = counts[b]
// and runs the middle loop for i in [b, n); the inner loop (line 26) runs from
// min(i, 1) to 7. With counts = [1, 0] only block 0 enters the inner loop, once,
// with i = 0: 7 iterations, so trips."26" = {min = 7} holds. The extractor
// refused the fact: in block 1 the inner loop's bounds are known (min(i, 1) = 1
// since i >= 1), giving 6 iterations, but that entry exists only if the middle
// loop runs, which the loaded count decides (here it does not). A fact may only
// be refused by an entry that surely executes. Found by generated program seed
// 5878 (the same shape: an affine.min of the induction variable of a loop from
// the block index to a loaded bound).
func.func @maybe_entry(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi64, #hivm.address_space<gm>>, %arg2: i32, %arg3: i32, %arg4: i32) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %g0 = arith.muli %arg2, %arg3 : i32
  %g1 = arith.muli %g0, %arg4 : i32
  annotation.mark %g1 {logical_block_num} : i32
  %b = hivm.hir.get_block_idx -> i64
  %bid = arith.index_cast %b : i64 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %rc = memref.reinterpret_cast %arg1 to offset: [%bid], sizes: [1], strides: [1] : memref<?xi64, #hivm.address_space<gm>> to memref<1xi64, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %n64 = memref.load %rc[%c0] : memref<1xi64, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %n = arith.index_cast %n64 : i64 to index
  scf.for %i = %bid to %n step %c1 {
    %lo = affine.min affine_map<()[s0] -> (s0, 1)>()[%i]
    scf.for %j = %lo to %c7 step %c1 {
      hivm.hir.pipe_barrier[<PIPE_V>]
    }
  }
  return
}
