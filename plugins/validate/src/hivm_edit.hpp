//===- hivm_edit.hpp - counterfactual edits of a raw HIVM dump ------------===//
//
// A counterfactual asks "what if the compiler had not emitted this?". The
// edits are text edits of the raw kernel.npuir.mlir keyed by the line
// numbers perfbound.extract_hivm reports (perfbound.hivm_program/1), so every
// other byte of the dump stays identical:
//   remove_barrier     delete one `hivm.hir.pipe_barrier[...]` line;
//   remove_sync_pair   delete a `set_flag` line and its `wait_flag` partner
//                      (same pipes and event, one handoff of the program);
//   set_multi_buffer   lower a buffer's `hivm.multi_buffer = N` annotation
//                      and drop the extra addresses of its `pointer_cast`.
// Guards refuse an edit that targets the wrong op (the program has no such op
// on that line, the line holds more than that op, the set and wait do not
// pair), changes nothing (the count is already N), or repeats another edit.
//
// check_reextraction compares the programs extracted before and after: the
// edited program must hold exactly the original ops minus the removed ones,
// in order, with the same names, pipes and counts, the same vector, cube and
// DMA totals, and sync totals lower by exactly the removed ops' executions.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_HIVM_EDIT_HPP
#define PERFBOUND_VALIDATE_HIVM_EDIT_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <perfbound/sdk/json.hpp>

namespace perfbound::validate {

using json = pb::sdk::json;

struct EditSpec {
  std::string kind;                 // remove_barrier | remove_sync_pair | set_multi_buffer
  uint32_t line = 0;                // remove_barrier, set_multi_buffer (the annotation.mark line)
  uint32_t set_line = 0;            // remove_sync_pair
  uint32_t wait_line = 0;           // remove_sync_pair
  int64_t buffers = 0;              // set_multi_buffer: the new count
  std::optional<std::string> pipe;  // remove_barrier: refuse unless the barrier drains this pipe ("ALL", "V", ...)
  std::string where;                // where the edit was written, for messages
};

/// One applied edit.
struct AppliedEdit {
  EditSpec spec;
  std::vector<uint32_t> removed_lines;  // original line numbers deleted
  std::vector<uint32_t> changed_lines;  // original line numbers rewritten in place
  std::vector<int64_t> removed_ops;     // op ids (original program) deleted
  json record;                          // kind, lines, before/after text, op ids, the extractor's judgement
};

struct EditResult {
  std::string text;  // the edited dump
  std::vector<AppliedEdit> edits;
};

/// Applies `edits` to `text` (the dump `program` was extracted from).
/// Throws InputError "<where>: ..." when a guard refuses an edit.
EditResult apply_edits(const std::string &text, const json &program, const std::vector<EditSpec> &edits);

/// The re-extraction check: {passed, checks: [...], problems: [...],
/// side_effects: [...]} (side effects: sync judgements of untouched ops
/// that changed, e.g. a neighbouring barrier's kind).
json check_reextraction(const json &before, const json &after, const EditResult &result);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_HIVM_EDIT_HPP
