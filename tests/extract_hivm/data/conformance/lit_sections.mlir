// A lit file of three inputs (mlir-opt --split-input-file): the same name in
// two of them, a longer marker that cuts too, and a near miss that does not.
func.func @k(%arg0: memref<256xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0_i64 = arith.constant 0 : i64
  %0 = hivm.hir.pointer_cast(%c0_i64) : memref<256xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%arg0 : memref<256xf32, #hivm.address_space<gm>>) outs(%0 : memref<256xf32, #hivm.address_space<ub>>)
  return
}

// -----

func.func @k(%arg0: memref<1024xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0_i64 = arith.constant 0 : i64
  %0 = hivm.hir.pointer_cast(%c0_i64) : memref<1024xf32, #hivm.address_space<ub>>
  hivm.hir.load ins(%arg0 : memref<1024xf32, #hivm.address_space<gm>>) outs(%0 : memref<1024xf32, #hivm.address_space<ub>>)
  return
}

// ---------
func.func @helper_k(%arg0: memref<64xf32, #hivm.address_space<gm>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  return
}
// ----
// (a near miss above: not a cut)
