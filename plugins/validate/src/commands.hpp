//===- commands.hpp - `perfbound validate` and `perfbound counterfactual` --===//
//
// The plugin's CLI commands. Both compute bounds and extract programs by
// running ordinary pipelines through the host's perfbound.host.pipeline/1
// extension, and load profiles through perfbound.host.profile/1; neither
// links host code.
//
// Exit status (docs/cli.md): validate 0 when every validated case is sound,
// 4 when any case is FAIL (unsound), 5 when every case is INFRA_ERROR, 3 for
// invalid input, 2 for usage errors; counterfactual 0 PASS/PREDICTED, 1 FAIL,
// 5 INFRA_ERROR, 3 invalid input or a refused edit; both 130 when interrupted
// (SIGINT/SIGTERM).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_COMMANDS_HPP
#define PERFBOUND_VALIDATE_COMMANDS_HPP

#include <string>
#include <vector>

#include <perfbound/sdk/plugin.hpp>

namespace perfbound::validate {

int validate_main(const pb::sdk::Host &host, const std::vector<std::string> &args);
int counterfactual_main(const pb::sdk::Host &host, const std::vector<std::string> &args);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_COMMANDS_HPP
