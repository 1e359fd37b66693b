// A MIX function before the compiler splits it into AIC and AIV parts, and
// a function without a core type whose ops need both cores.
func.func @mix(%a: memref<16x16xf16, #hivm.address_space<cbuf>>, %b: memref<16x16xf16, #hivm.address_space<cbuf>>, %c: memref<16x16xf32, #hivm.address_space<cc>>, %x: memref<1024xf32, #hivm.address_space<ub>>, %y: memref<1024xf32, #hivm.address_space<ub>>) attributes {hivm.func_core_type = #hivm.func_core_type<MIX>} {
  %true = arith.constant true
  %c16 = arith.constant 16 : index
  hivm.hir.mmadL1 ins(%a, %b, %true, %c16, %c16, %c16 : memref<16x16xf16, #hivm.address_space<cbuf>>, memref<16x16xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<16x16xf32, #hivm.address_space<cc>>)
  hivm.hir.vadd ins(%x, %x : memref<1024xf32, #hivm.address_space<ub>>, memref<1024xf32, #hivm.address_space<ub>>) outs(%y : memref<1024xf32, #hivm.address_space<ub>>)
  hivm.hir.sync_block_set[<CUBE>, <PIPE_FIX>, <PIPE_MTE2>] flag = 1
  hivm.hir.sync_block_wait[<VECTOR>, <PIPE_FIX>, <PIPE_MTE2>] flag = 1
  return
}
