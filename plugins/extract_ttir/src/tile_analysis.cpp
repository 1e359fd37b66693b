//===- tile_analysis.cpp - data tiles, buffers and liveness ---------------===//
#include "tile_analysis.hpp"

#include <algorithm>
#include <set>

namespace perfbound::ttir {

Buffer TileAnalysis::buffer_of(Value v) {
  if (!model_.has_dot) return Buffer::UB;
  Operation *def = v.getDefiningOp();
  if (def != nullptr && is_cube_op(def)) return Buffer::L0C;
  // Accumulators carried by loops are dot results.
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
    if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(arg.getOwner()->getParentOp())) {
      if (arg.getArgNumber() >= 1) {
        Value yielded = for_op.getBody()->getTerminator()->getOperand(arg.getArgNumber() - 1);
        if (yielded.getDefiningOp() != nullptr && is_cube_op(yielded.getDefiningOp())) return Buffer::L0C;
      }
    }
  }
  if (auto res = llvm::dyn_cast<mlir::OpResult>(v)) {
    if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(res.getOwner())) {
      Value yielded = for_op.getBody()->getTerminator()->getOperand(res.getResultNumber());
      if (yielded.getDefiningOp() != nullptr && is_cube_op(yielded.getDefiningOp())) return Buffer::L0C;
    }
  }
  // Loaded tiles that only feed dot operands a/b (possibly through layout ops)
  // go GM -> L1 on the cube core.
  // Both walks follow chains of layout ops, as deep as the program is long:
  // beyond kMaxExprDepth the answer is "no" (the tile stays in UB).
  int depth = 0;
  std::function<bool(Value)> feeds_cube_only = [&](Value x) -> bool {
    DepthGuard guard(depth);
    if (guard.too_deep() || x.use_empty()) return false;
    for (mlir::OpOperand &use : x.getUses()) {
      Operation *user = use.getOwner();
      if (is_cube_op(user)) {
        if (use.getOperandNumber() > 1) return false;
        continue;
      }
      if (is_layout_only(user) && user->getNumResults() == 1 && feeds_cube_only(user->getResult(0))) continue;
      if (llvm::isa<tt::AnnotationOp>(user)) continue;
      return false;
    }
    return true;
  };
  std::function<bool(Value)> from_load = [&](Value x) -> bool {
    DepthGuard guard(depth);
    Operation *d = x.getDefiningOp();
    if (guard.too_deep() || d == nullptr) return false;
    if (llvm::isa<tt::LoadOp, tt::DescriptorLoadOp, tt::ExperimentalDescriptorLoadOp, tt::GatherLoadOp>(d)) return true;
    return is_layout_only(d) && d->getNumOperands() > 0 && from_load(d->getOperand(0));
  };
  if (from_load(v) && feeds_cube_only(v)) return Buffer::L1;
  // A constant that only initialises an accumulator is an L0C fill.
  if (def != nullptr && llvm::isa<mlir::arith::ConstantOp>(def)) {
    bool only_acc = !v.use_empty();
    for (mlir::OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (is_cube_op(user) && use.getOperandNumber() == 2) continue;
      if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(user)) {
        unsigned first = for_op.getNumControlOperands();
        if (use.getOperandNumber() >= first &&
            buffer_of(for_op.getRegionIterArgs()[use.getOperandNumber() - first]) == Buffer::L0C)
          continue;
      }
      only_acc = false;
    }
    if (only_acc) return Buffer::L0C;
  }
  return Buffer::UB;
}

void TileAnalysis::collect_tiles(tt::FuncOp func) {
  auto consider = [&](Value v, Operation *def_op, const SourceLoc &loc) {
    Type t = v.getType();
    if (!is_tensor(t) || is_pointer_like(t) || address_only(v)) return;
    // A value used only as the `other` of loads fills the load's own buffer;
    // a splat constant used only to initialise accumulators (loop-carried
    // values, a dot's accumulator) or as `other` fills those buffers.
    bool splat_constant = false;
    if (auto cst = llvm::dyn_cast_or_null<mlir::arith::ConstantOp>(def_op))
      if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(cst.getValue())) splat_constant = dense.isSplat();
    bool fill = !v.use_empty();
    for (mlir::OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      auto load = llvm::dyn_cast<tt::LoadOp>(user);
      bool as_other = load && load.getOther() == v && use.getOperandNumber() == 2;
      bool as_init = false;
      if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(user))
        as_init = use.getOperandNumber() >= for_op.getNumControlOperands();
      bool as_acc = is_cube_op(user) && use.getOperandNumber() == 2;
      fill = fill && (as_other || (splat_constant && (as_init || as_acc)));
    }
    if (fill) return;
    if (tile_of_.count(v) != 0) return;
    Tile tile;
    tile.id = static_cast<int>(model_.tiles.size());
    tile.shape = shape_of(t);
    tile.dtype = type_text(element_of(t));
    tile.element_bits = bits_of(element_of(t));
    tile.op = def_op != nullptr ? def_op->getName().getStringRef().str() : "loop-carried value";
    tile.loc = loc;
    tile.name = loc.name.empty() ? tile.op + (loc.line > 0 ? " at line " + std::to_string(loc.line) : "") : loc.name;
    tile.buffer = buffer_of(v);
    if (def_op != nullptr && llvm::isa<tt::LoadOp, tt::DescriptorLoadOp, tt::ExperimentalDescriptorLoadOp, tt::GatherLoadOp>(def_op))
      tile.loaded_in_loop = def_op->getParentOfType<mlir::scf::ForOp>() != nullptr;
    tile_of_[v] = tile.id;
    model_.tiles.push_back(std::move(tile));
  };
  func.walk([&](Operation *op) {
    // Values inside reduce/scan combiners are scalars of the combiner.
    if (op->getParentOfType<tt::ReduceOp>() || op->getParentOfType<tt::ScanOp>() ||
        op->getParentOfType<tt::MapElementwiseOp>())
      return;
    SourceLoc loc = loc_of(op);
    for (Value r : op->getResults()) consider(r, op, loc);
    for (mlir::Region &region : op->getRegions()) {
      if (llvm::isa<tt::ReduceOp, tt::ScanOp, tt::MapElementwiseOp>(op)) continue;
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments()) consider(arg, nullptr, loc);
    }
  });
}

void TileAnalysis::liveness_block(mlir::Block &block, const std::vector<int> &outer) {
  // Position of each op (a table sorted by op, searched: a fraction of a
  // hash map's memory on a block of 50k ops); last position that uses each
  // tile value, and positions of ops whose nested regions use it.
  std::vector<std::pair<Operation *, size_t>> positions;
  size_t pos = 0;
  for (Operation &op : block) positions.emplace_back(&op, pos++);
  std::sort(positions.begin(), positions.end());
  auto position = [&](Operation *op) {
    return std::lower_bound(positions.begin(), positions.end(), std::make_pair(op, size_t{0}))->second;
  };
  struct Use {
    int tile = -1;
    long def = -1;  // -1: a block argument, live from the block's start
    size_t last = 0;
    std::vector<size_t> nested;
  };
  std::vector<Use> uses;                // in the order the values are met
  llvm::DenseMap<int, unsigned> use_of;  // tile -> its entry in `uses`
  auto track = [&](Value v, long def_pos) {
    auto it = tile_of_.find(v);
    if (it == tile_of_.end()) return;
    Use u;
    u.tile = it->second;
    u.def = def_pos;
    u.last = def_pos < 0 ? 0 : static_cast<size_t>(def_pos);
    for (mlir::OpOperand &use : v.getUses()) {
      Operation *user = block.findAncestorOpInBlock(*use.getOwner());
      if (user == nullptr) continue;
      size_t p = position(user);
      u.last = std::max(u.last, p);
      if (user != use.getOwner()) u.nested.push_back(p);
    }
    use_of[u.tile] = static_cast<unsigned>(uses.size());
    uses.push_back(std::move(u));
  };
  for (mlir::BlockArgument arg : block.getArguments()) track(arg, -1);
  pos = 0;
  for (Operation &op : block) {
    for (Value r : op.getResults()) track(r, static_cast<long>(pos));
    ++pos;
  }

  // One sweep over the block: a tile is `open` from the op after its
  // definition to its last use, so each op looks only at the tiles defined
  // by it and those open at it (linear in the block, not ops x tiles).
  // The events (position, tile), sorted, are read with a cursor each.
  using Event = std::pair<size_t, int>;
  std::vector<Event> defined, opens, closes;
  for (const Use &u : uses) {
    if (u.def >= 0) defined.emplace_back(static_cast<size_t>(u.def), u.tile);
    const auto first = static_cast<size_t>(u.def + 1);
    if (first <= u.last) {
      opens.emplace_back(first, u.tile);
      closes.emplace_back(u.last, u.tile);
    }
  }
  std::sort(defined.begin(), defined.end());
  std::sort(opens.begin(), opens.end());
  std::sort(closes.begin(), closes.end());
  size_t next_defined = 0, next_open = 0, next_close = 0;
  std::set<int> open;
  auto push_point = [&](std::vector<int> live, Operation *op) {
    if (live.empty()) return;
    std::sort(live.begin(), live.end());
    live.erase(std::unique(live.begin(), live.end()), live.end());
    if (!model_.live_points.empty() && model_.live_points.back().tiles == live) return;
    model_.live_points.push_back({std::move(live), loc_of(op)});
  };
  size_t p = 0;
  for (Operation &op : block) {
    for (; next_open < opens.size() && opens[next_open].first == p; ++next_open) open.insert(opens[next_open].second);
    std::vector<int> live = outer;
    std::vector<int> into_regions = outer;
    // Values that die here and become a result share its buffer: the
    // accumulator of a dot (the cube accumulates in place) and the initial
    // values of a loop's carried tiles.
    std::vector<int> in_place;
    auto share = [&](Value v) {
      auto it = tile_of_.find(v);
      if (it != tile_of_.end()) in_place.push_back(it->second);
    };
    if (is_cube_op(&op) && op.getNumOperands() > 2) share(op.getOperand(2));
    if (auto for_op = llvm::dyn_cast<mlir::scf::ForOp>(op))
      for (Value init : for_op.getInitArgs()) share(init);
    // Results of this op.
    for (; next_defined < defined.size() && defined[next_defined].first == p; ++next_defined)
      live.push_back(defined[next_defined].second);
    // Tiles defined before this op and used here or later.
    for (int tile : open) {
      const Use &u = uses[use_of.lookup(tile)];
      bool nested_here = std::find(u.nested.begin(), u.nested.end(), p) != u.nested.end();
      if (u.last == p && std::find(in_place.begin(), in_place.end(), tile) != in_place.end()) {
        if (nested_here) into_regions.push_back(tile);  // still read inside the loop
        continue;
      }
      live.push_back(tile);
      if (u.last > p || nested_here) into_regions.push_back(tile);
    }
    push_point(live, &op);
    for (mlir::Region &region : op.getRegions()) {
      if (llvm::isa<tt::ReduceOp, tt::ScanOp, tt::MapElementwiseOp>(op)) continue;
      for (mlir::Block &inner : region) liveness_block(inner, into_regions);
    }
    for (; next_close < closes.size() && closes[next_close].first == p; ++next_close) open.erase(closes[next_close].second);
    ++p;
  }
}

}  // namespace perfbound::ttir
