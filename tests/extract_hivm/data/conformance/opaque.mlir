// Ops the extractor does not model beside one it does: an unknown op with a
// 4 KiB operand, a custom op, an atomic exchange and an op without operands.
func.func @opaque(%arg0: memref<1024xf32, #hivm.address_space<gm>>, %flag: memref<1xi64>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0_i64 = arith.constant 0 : i64
  %c4096_i64 = arith.constant 4096 : i64
  %0 = hivm.hir.pointer_cast(%c0_i64) : memref<1024xf32, #hivm.address_space<ub>>
  %1 = hivm.hir.pointer_cast(%c4096_i64) : memref<1024xf32, #hivm.address_space<ub>>
  hivm.hir.vadd ins(%0, %0 : memref<1024xf32, #hivm.address_space<ub>>, memref<1024xf32, #hivm.address_space<ub>>) outs(%1 : memref<1024xf32, #hivm.address_space<ub>>)
  hivm.hir.frobnicate ins(%0 : memref<1024xf32, #hivm.address_space<ub>>) outs(%1 : memref<1024xf32, #hivm.address_space<ub>>)
  hivm.hir.custom {hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, symbol = "wait_flag_gm"} "dist.wait_flag_gm" ins(%flag, %c0_i64 : memref<1xi64>, i64)
  hivm.hir.atomic_xchg ins(%1 : memref<1024xf32, #hivm.address_space<ub>>) outs(%arg0 : memref<1024xf32, #hivm.address_space<gm>>)
  hivm.hir.anchor {id = 0 : i64}
  return
}
func.func @no_pipe(%l1: memref<64xf32, #hivm.address_space<cbuf>>, %ub: memref<64xf32, #hivm.address_space<ub>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  hivm.hir.copy ins(%l1 : memref<64xf32, #hivm.address_space<cbuf>>) outs(%ub : memref<64xf32, #hivm.address_space<ub>>)
  return
}
