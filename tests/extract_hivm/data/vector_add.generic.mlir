// The bundled vector_add example (examples/kernels/vector_add/vector_add.npuir.mlir) reduced to
// static extents and printed in MLIR's generic form (--mlir-print-op-generic), written by hand for
// the extract_hivm tests. Same loads, vadd, store and flags as the custom form with n a multiple of 2048.
"func.func"() <{function_type = (i64, memref<?xi8, #hivm.address_space<gm>>, memref<?xi8, #hivm.address_space<gm>>, memref<?xf32, #hivm.address_space<gm>>, memref<?xf32, #hivm.address_space<gm>>, memref<?xf32, #hivm.address_space<gm>>, i32, i32, i32, i32) -> (), sym_name = "add_kernel"}> ({
^bb0(%arg0: i64, %arg1: memref<?xi8, #hivm.address_space<gm>>, %arg2: memref<?xi8, #hivm.address_space<gm>>, %arg3: memref<?xf32, #hivm.address_space<gm>>, %arg4: memref<?xf32, #hivm.address_space<gm>>, %arg5: memref<?xf32, #hivm.address_space<gm>>, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i32):
  %0 = "arith.constant"() <{value = 16384 : i64}> : () -> i64
  %1 = "arith.constant"() <{value = 8192 : i64}> : () -> i64
  %2 = "arith.constant"() <{value = 0 : i64}> : () -> i64
  %3 = "arith.constant"() <{value = 2048 : i32}> : () -> i32
  "hivm.hir.set_mask_norm"() : () -> ()
  %4 = "arith.muli"(%arg7, %arg8) : (i32, i32) -> i32
  %5 = "arith.muli"(%4, %arg9) : (i32, i32) -> i32
  "annotation.mark"(%5) {logical_block_num} : (i32) -> ()
  %6 = "hivm.hir.get_block_idx"() : () -> i64
  %7 = "arith.trunci"(%6) : (i64) -> i32
  %8 = "arith.muli"(%7, %3) : (i32, i32) -> i32
  %9 = "arith.index_cast"(%8) : (i32) -> index
  %10 = "memref.reinterpret_cast"(%arg3, %9) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 2048>, static_strides = array<i64: 1>}> : (memref<?xf32, #hivm.address_space<gm>>, index) -> memref<2048xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %11 = "hivm.hir.pointer_cast"(%2) : (i64) -> memref<2048xf32, #hivm.address_space<ub>>
  "hivm.hir.load"(%10, %11) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (memref<2048xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>, memref<2048xf32, #hivm.address_space<ub>>) -> ()
  %12 = "memref.reinterpret_cast"(%arg4, %9) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 2048>, static_strides = array<i64: 1>}> : (memref<?xf32, #hivm.address_space<gm>>, index) -> memref<2048xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %13 = "hivm.hir.pointer_cast"(%1) : (i64) -> memref<2048xf32, #hivm.address_space<ub>>
  "hivm.hir.load"(%12, %13) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (memref<2048xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>, memref<2048xf32, #hivm.address_space<ub>>) -> ()
  "hivm.hir.set_flag"() <{set_pipe = #hivm.pipe<PIPE_MTE2>, static_event_id = #hivm.event<EVENT_ID0>, wait_pipe = #hivm.pipe<PIPE_V>}> : () -> ()
  "hivm.hir.wait_flag"() <{set_pipe = #hivm.pipe<PIPE_MTE2>, static_event_id = #hivm.event<EVENT_ID0>, wait_pipe = #hivm.pipe<PIPE_V>}> : () -> ()
  %14 = "hivm.hir.pointer_cast"(%0) : (i64) -> memref<2048xf32, #hivm.address_space<ub>>
  "hivm.hir.vadd"(%11, %13, %14) <{operandSegmentSizes = array<i32: 2, 1, 0>}> : (memref<2048xf32, #hivm.address_space<ub>>, memref<2048xf32, #hivm.address_space<ub>>, memref<2048xf32, #hivm.address_space<ub>>) -> ()
  "hivm.hir.set_flag"() <{set_pipe = #hivm.pipe<PIPE_V>, static_event_id = #hivm.event<EVENT_ID0>, wait_pipe = #hivm.pipe<PIPE_MTE3>}> : () -> ()
  %15 = "memref.reinterpret_cast"(%arg5, %9) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 2048>, static_strides = array<i64: 1>}> : (memref<?xf32, #hivm.address_space<gm>>, index) -> memref<2048xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  "hivm.hir.wait_flag"() <{set_pipe = #hivm.pipe<PIPE_V>, static_event_id = #hivm.event<EVENT_ID0>, wait_pipe = #hivm.pipe<PIPE_MTE3>}> : () -> ()
  "hivm.hir.store"(%14, %15) <{operandSegmentSizes = array<i32: 1, 1>}> : (memref<2048xf32, #hivm.address_space<ub>>, memref<2048xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) -> ()
  "hivm.hir.pipe_barrier"() <{pipe = #hivm.pipe<PIPE_ALL>}> : () -> ()
  "func.return"() : () -> ()
}) {hivm.func_core_type = #hivm.func_core_type<AIV>} : () -> ()
