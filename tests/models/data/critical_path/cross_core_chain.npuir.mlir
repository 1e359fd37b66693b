// Written for perfbound's tests: a mix kernel whose vector half cannot start
// before the cube half has loaded its tile. The AIC loads 64 KiB into L1 and
// sets cross-core flag 1 on MTE2; each AIV waits for flag 1, then loads,
// adds and stores its own 64 KiB tile through flags. The block's chain is
// the AIC load followed by the AIV's load, add and store.
func.func @cross_chain_mix_aic(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xf32, #hivm.address_space<gm>>, %arg2: memref<?xf32, #hivm.address_space<gm>>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIC>, hivm.part_of_mix, mix_mode = "mix"} {
  %c0 = arith.constant 0 : index
  %c0_i64 = arith.constant 0 : i64
  %l1 = hivm.hir.pointer_cast(%c0_i64) : memref<16384xf32, #hivm.address_space<cbuf>>
  %src = memref.reinterpret_cast %arg1 to offset: [%c0], sizes: [16384], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<16384xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  hivm.hir.load ins(%src : memref<16384xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%l1 : memref<16384xf32, #hivm.address_space<cbuf>>)
  hivm.hir.sync_block_set[<CUBE>, <PIPE_MTE2>, <PIPE_S>] flag = 1
  return
}
func.func @cross_chain_mix_aiv(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xf32, #hivm.address_space<gm>>, %arg2: memref<?xf32, #hivm.address_space<gm>>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>, hivm.part_of_mix, mix_mode = "mix"} {
  %c0 = arith.constant 0 : index
  %c0_i64 = arith.constant 0 : i64
  %c65536_i64 = arith.constant 65536 : i64
  %ub0 = hivm.hir.pointer_cast(%c0_i64) : memref<16384xf32, #hivm.address_space<ub>>
  %ub1 = hivm.hir.pointer_cast(%c65536_i64) : memref<16384xf32, #hivm.address_space<ub>>
  hivm.hir.sync_block_wait[<VECTOR>, <PIPE_MTE2>, <PIPE_S>] flag = 1
  %src = memref.reinterpret_cast %arg2 to offset: [%c0], sizes: [16384], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<16384xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  hivm.hir.load ins(%src : memref<16384xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%ub0 : memref<16384xf32, #hivm.address_space<ub>>)
  hivm.hir.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
  hivm.hir.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
  hivm.hir.vadd ins(%ub0, %ub0 : memref<16384xf32, #hivm.address_space<ub>>, memref<16384xf32, #hivm.address_space<ub>>) outs(%ub1 : memref<16384xf32, #hivm.address_space<ub>>)
  hivm.hir.set_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]
  hivm.hir.wait_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]
  %dst = memref.reinterpret_cast %arg2 to offset: [%c0], sizes: [16384], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<16384xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  hivm.hir.store ins(%ub1 : memref<16384xf32, #hivm.address_space<ub>>) outs(%dst : memref<16384xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>)
  return
}
