#include "clients/cli/args.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace raw::cli {
namespace {

const OptionSpec* FindSpec(const std::vector<OptionSpec>& specs, const std::string& name) {
  for (const auto& spec : specs) {
    if (spec.name == name || (!spec.alias.empty() && spec.alias == name)) return &spec;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> ParsedArgs::Value(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<OptionSpec>& specs, OptionOrder order) {
  ParsedArgs parsed;
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done || arg == "-" || !absl::StartsWith(arg, "-")) {
      parsed.positionals.push_back(arg);
      if (order == OptionOrder::kBeforePositionals) options_done = true;
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (auto eq = arg.find('='); absl::StartsWith(arg, "--") && eq != std::string::npos) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    const OptionSpec* spec = FindSpec(specs, name);
    if (spec == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown option ", name));
    if (spec->kind == OptionSpec::Kind::kFlag) {
      if (inline_value) {
        return absl::InvalidArgumentError(absl::StrCat("option ", spec->name, " takes no value"));
      }
      parsed.flags.insert(spec->name);
      continue;
    }
    std::string value;
    if (inline_value) {
      value = *inline_value;
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("option ", spec->name, " needs a value"));
    }
    if (spec->kind == OptionSpec::Kind::kRepeatedValue) {
      parsed.repeated[spec->name].push_back(std::move(value));
      continue;
    }
    if (!parsed.values.emplace(spec->name, value).second) {
      return absl::InvalidArgumentError(absl::StrCat("option ", spec->name, " is given twice"));
    }
  }
  return parsed;
}

}  // namespace raw::cli
