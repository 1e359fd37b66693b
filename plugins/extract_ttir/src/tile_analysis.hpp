//===- tile_analysis.hpp - data tiles, buffers and liveness ---------------===//
//
// TileAnalysis finds the tensor values that hold data on chip (Tile
// records): not pointers, not address-only integer tensors (AddressUses),
// not a value used only as a load's `other`, not a splat constant that only
// initialises accumulators. Each tile's buffer: UB in a kernel without
// tt.dot; in a mix kernel L1 for loaded tiles that only feed dot operands,
// L0C for dot results and their accumulators, UB otherwise. The liveness
// walk records, after each op, the set of tiles live together
// (KernelModel::live_points), from which the buffer footprint is taken.
// From: the function's ops and the uses of their values.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_TILE_ANALYSIS_HPP
#define PERFBOUND_EXTRACT_TTIR_TILE_ANALYSIS_HPP

#include "compute_analysis.hpp"

namespace perfbound::ttir {

class TileAnalysis : public FunctionUnit {
 public:
  TileAnalysis(FunctionState &s, AddressUses &addresses) : FunctionUnit(s), addresses_(addresses) {}

  /// Records every data tile of `func` (after the walk: model_.has_dot is known).
  void collect_tiles(tt::FuncOp func);
  /// Records the live tiles after each op of `block`, `outer` live throughout.
  void liveness_block(mlir::Block &block, const std::vector<int> &outer);

 private:
  bool address_only(Value v) { return addresses_.address_only(v); }
  Buffer buffer_of(Value v);

  AddressUses &addresses_;
  llvm::DenseMap<Value, int> tile_of_;
};

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_TILE_ANALYSIS_HPP
