// Written for perfbound's regression replay; NOT compiler output.
// A collapse_shape whose first member dimension is dynamic with no SSA size
// (the argument's own '?') and whose second is static: the extractor
// multiplied its "dynamic" marker (INT64_MIN) by 64 (UBSan signed-integer-
// overflow in views.cpp, found by fuzz_hivm on 2026-12-02).
func.func @collapse(%arg0: memref<?x64xf32, #hivm.address_space<gm>>) attributes {hacc.entry, hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %collapse = memref.collapse_shape %arg0 [[0, 1]] : memref<?x64xf32, #hivm.address_space<gm>> into memref<?xf32, #hivm.address_space<gm>>
  %buf = memref.alloc() : memref<64xf32, #hivm.address_space<ub>>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %tile = memref.subview %collapse[%c0] [64] [1] : memref<?xf32, #hivm.address_space<gm>> to memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  hivm.hir.load ins(%tile : memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%buf : memref<64xf32, #hivm.address_space<ub>>)
  return
}
