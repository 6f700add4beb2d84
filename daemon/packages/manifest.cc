#include "daemon/packages/manifest.h"

#include <algorithm>
#include <array>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/json.h"
#include "common/utf8.h"
#include "daemon/config/agent_entry.h"
#include "daemon/config/duplicate_keys.h"
#include "daemon/config/field_reader.h"
#include "daemon/config/mcp_server_entry.h"
#include "daemon/config/model_entry.h"
#include "daemon/config/package_ref.h"
#include "daemon/config/policy_entry.h"
#include "daemon/config/variable_refs.h"
#include "daemon/packages/package_commands.h"
#include "daemon/packages/package_files.h"
#include "daemon/packages/package_tree.h"
#include "daemon/skills/skill_set.h"

namespace raw::packages {
namespace {

using config::ConfigProblem;
using config::FieldReader;
using config::IndexPath;
using config::JoinPath;

constexpr std::array<absl::string_view, 7> kManifestKeys = {
    "$schema", "name", "version", "description", "homepage", "license", "exports"};
constexpr std::array<absl::string_view, 6> kExportKinds = {"skills", "hooks",   "mcp",
                                                           "agents", "prompts", "models"};
constexpr std::array<absl::string_view, 1> kSkillKeys = {"path"};
constexpr std::array<absl::string_view, 2> kPromptKeys = {"text", "path"};
// What an agent preset may set: the parts of an agent that describe how it
// works, not where it runs or what secrets it gets.
constexpr std::array<absl::string_view, 9> kPresetKeys = {"system_prompt", "tools",   "rules",
                                                          "skills",        "hooks",   "max_steps",
                                                          "approval_mode", "compact", "prompts"};
constexpr std::array<absl::string_view, 1> kRefusedServerKeys = {"cwd"};

// True for what a displayed text field may not hold: control characters
// (C0, DEL, C1), which a terminal acts on, and the invisible formatting
// characters that reorder, hide or break the text around them: the bidi
// marks, embeddings, overrides and isolates (U+061C, U+200E-U+200F,
// U+202A-U+202E, U+2066-U+2069), line and paragraph separators
// (U+2028-U+2029), the zero-width space, word joiner and invisible
// operators (U+200B, U+2060-U+2064), the deprecated format controls
// (U+206A-U+206F), U+FEFF, the interlinear annotations (U+FFF9-U+FFFB)
// and tags (U+E0000-U+E007F). The joiners U+200C and U+200D stay: scripts
// and emoji need them, and they move nothing.
bool IsUnsafeInText(char32_t c) {
  return c < 0x20 || (c >= 0x7f && c <= 0x9f) || IsBidiFormatting(c) || c == 0x200b ||
         c == 0x2028 || c == 0x2029 || (c >= 0x2060 && c <= 0x2064) ||
         (c >= 0x206a && c <= 0x206f) || c == 0xfeff || (c >= 0xfff9 && c <= 0xfffb) ||
         (c >= 0xe0000 && c <= 0xe007f);
}

// The first character of `text` that IsUnsafeInText refuses (text the
// JSON parser accepted, so valid UTF-8; an ill-formed byte is refused too).
std::optional<char32_t> FirstUnsafeCharacter(absl::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8SequenceLength(std::string_view(text.data(), text.size()), i);
    if (n == 0) return static_cast<unsigned char>(text[i]);
    const char32_t c = DecodeUtf8At(std::string_view(text.data(), text.size()), i, n);
    if (IsUnsafeInText(c)) return c;
    i += n;
  }
  return std::nullopt;
}

// Reports `key` when `text` (a field `raw package` shows) holds a character
// that could act on a terminal or disguise what is shown; false then.
bool CheckDisplayedText(FieldReader& r, absl::string_view key, absl::string_view text) {
  std::optional<char32_t> bad = FirstUnsafeCharacter(text);
  if (!bad) return true;
  r.Report(key, absl::StrFormat("holds U+%04X, a control or invisible formatting character; "
                                "text that is shown may hold neither (a terminal would act on "
                                "it, or it would hide or reorder the text around it)",
                                static_cast<uint32_t>(*bad)));
  return false;
}

bool IsSkillName(absl::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  if (!absl::ascii_isdigit(static_cast<unsigned char>(name[0])) &&
      !absl::ascii_islower(static_cast<unsigned char>(name[0]))) {
    return false;
  }
  for (char c : name) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c)) &&
        !absl::ascii_islower(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

// A relative path inside the package that must exist in `files` (as a file
// when `is_dir` is false, as a directory holding `inside` otherwise).
void CheckPackagePath(FieldReader& r, const std::string& path, const std::set<std::string>& files,
                      const char* inside) {
  if (absl::Status ok = CheckRelativePath(path, TreeLimits{}); !ok.ok()) {
    r.Report("path", std::string(ok.message()));
    return;
  }
  std::string want = inside == nullptr ? path : absl::StrCat(path, "/", inside);
  if (!files.contains(want)) {
    r.Report("path", absl::StrCat("the package has no file ", QuoteEntryName(want)));
  }
}

// Calls `read(name, value, path)` for every entry of exports.<kind>.
template <typename Read>
void ForEachExport(FieldReader& exports, absl::string_view kind,
                   bool (*valid_name)(absl::string_view), absl::string_view name_rule,
                   std::vector<ConfigProblem>& problems, Read read) {
  const Json* section = exports.Find(kind);
  if (section == nullptr) return;
  FieldReader r(*section, exports.PathOf(kind), problems);
  if (!r.is_object()) return;
  for (const auto& [name, value] : section->items()) {
    std::string path = r.PathOf(name);
    if (!valid_name(name)) {
      problems.push_back({path, absl::StrCat("invalid export name (", name_rule, ")")});
      continue;
    }
    read(name, value, path);
  }
}

bool IsPlainName(absl::string_view name) { return config::IsValidName(name); }

// A package never reads the installing user's variables: a server's env or
// headers, or a model's api_key or headers, naming "${NAME}" would send
// that secret wherever the package says (its server's URL, its model's
// base_url) as soon as an agent selects the export. "${package}" (the
// package's directory) is the package's own. `key` holds a string or an
// object of strings.
void RefuseVariables(FieldReader& r, absl::string_view key, std::vector<ConfigProblem>& problems) {
  const Json* value = r.Find(key);
  if (value == nullptr) return;
  auto check = [](const Json& text) -> std::optional<std::string> {
    if (!text.is_string()) return std::nullopt;
    absl::StatusOr<std::vector<std::string>> names =
        config::ReferencedVariables(text.get_ref<const std::string&>());
    if (!names.ok()) return std::nullopt;  // the entry's own check reports it
    for (const std::string& name : *names) {
      if (name == "package") continue;
      return absl::StrCat("uses the variable ${", name,
                          "}; a package cannot read your variables (a server or model that "
                          "needs a key is defined in your own config)");
    }
    return std::nullopt;
  };
  if (value->is_object()) {
    FieldReader items(*value, r.PathOf(key), problems);
    for (const auto& item : value->items()) {
      if (std::optional<std::string> why = check(item.value())) items.Report(item.key(), *why);
    }
  } else if (std::optional<std::string> why = check(*value)) {
    r.Report(key, *why);
  }
}

// agents.<preset>.prompts: names of the package's own prompt exports.
std::vector<std::string> PresetPrompts(const Json& list, const Manifest& m, const std::string& path,
                                       std::vector<ConfigProblem>& problems) {
  std::vector<std::string> out;
  if (!list.is_array()) {
    problems.push_back({path, "expected an array of names of this package's prompts"});
    return out;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string() || !m.prompts.contains(list[i].get<std::string>())) {
      problems.push_back(
          {IndexPath(path, i), absl::StrCat(list[i].dump(),
                                            " is not a prompt of this package (a "
                                            "preset names its package's own prompts)")});
      continue;
    }
    out.push_back(list[i].get<std::string>());
  }
  return out;
}

// A preset refers to its own package's skills, hooks and MCP servers by name.
void CheckPresetRefs(const config::AgentConfig& preset, const Manifest& m, const std::string& path,
                     std::vector<ConfigProblem>& problems) {
  for (size_t i = 0; i < preset.skills.size(); ++i) {
    if (!m.skills.contains(preset.skills[i])) {
      problems.push_back({IndexPath(JoinPath(path, "skills"), i),
                          absl::StrCat("\"", preset.skills[i],
                                       "\" is not a skill of this package (a preset names its "
                                       "package's own skills)")});
    }
  }
  for (size_t i = 0; i < preset.hooks.size(); ++i) {
    if (!m.hooks.contains(preset.hooks[i])) {
      problems.push_back({IndexPath(JoinPath(path, "hooks"), i),
                          absl::StrCat("\"", preset.hooks[i],
                                       "\" is not a hook of this package (a preset names its "
                                       "package's own hooks)")});
    }
  }
  std::string use = JoinPath(JoinPath(path, "tools"), "use");
  for (size_t i = 0; i < preset.tools_use.size(); ++i) {
    absl::string_view entry = preset.tools_use[i];
    if (config::IsPackageRef(entry)) {
      problems.push_back({IndexPath(use, i),
                          "a preset names builtin/ tools or its package's own servers as "
                          "mcp/<server>/<tool>"});
      continue;
    }
    if (!absl::ConsumePrefix(&entry, "mcp/")) continue;
    const size_t slash = entry.find('/');
    std::string server(entry.substr(0, slash));
    if (slash == absl::string_view::npos) {
      // As in a config: an entry names a server's tools, not the server.
      problems.push_back({IndexPath(use, i),
                          absl::StrCat("\"", preset.tools_use[i],
                                       "\" must name one server and its tools: "
                                       "mcp/<server>/<tool>, or mcp/<server>/* for all of them")});
    } else if (!m.mcp.contains(server)) {
      problems.push_back({IndexPath(use, i),
                          absl::StrCat("\"", server,
                                       "\" is not an MCP server of this package (a preset names "
                                       "its package's own servers)")});
    }
  }
}

void ReadExports(FieldReader& doc, const std::set<std::string>& files, Manifest& m,
                 std::vector<ConfigProblem>& problems) {
  const Json* exports = doc.Find("exports");
  if (exports == nullptr) return;
  FieldReader e(*exports, "exports", problems);
  if (!e.is_object()) return;
  e.RejectUnknownKeys(kExportKinds);
  ForEachExport(e, "skills", IsSkillName, "lowercase letters, digits, '_' and '-'", problems,
                [&](const std::string& name, const Json& value, const std::string& path) {
                  FieldReader r(value, path, problems);
                  if (!r.is_object()) return;
                  r.RejectUnknownKeys(kSkillKeys);
                  r.Require("path", "the skill's folder, holding SKILL.md");
                  if (auto p = r.NonEmptyString("path", "a relative folder path")) {
                    CheckPackagePath(r, *p, files, "SKILL.md");
                    m.skills[name] = SkillExport{name, *p};
                  }
                });
  ForEachExport(e, "hooks", IsPlainName, "letters, digits, '_', '.' and '-'", problems,
                [&](const std::string& name, const Json& value, const std::string& path) {
                  m.hooks[name] =
                      config::ReadHook(name, value, path, /*context=*/nullptr, problems);
                  CheckHookCommand(m.name, name, m.hooks[name], path, problems);
                });
  ForEachExport(e, "mcp", config::IsMcpServerName, "letters, digits, '_' and '-', at most 32",
                problems, [&](const std::string& name, const Json& value, const std::string& path) {
                  FieldReader r(value, path, problems);
                  for (absl::string_view key : kRefusedServerKeys) {
                    if (r.Find(key) != nullptr) {
                      r.Report(key,
                               "a package's server starts in the daemon's directory; "
                               "refer to the package's files as ${package}/...");
                    }
                  }
                  if (r.Find("from") != nullptr) {
                    r.Report("from", "a package defines its servers itself");
                    return;
                  }
                  if (std::optional<std::string> why = config::AmbiguousServerName(name)) {
                    problems.push_back({path, *why});
                    return;
                  }
                  RefuseVariables(r, "env", problems);
                  RefuseVariables(r, "headers", problems);
                  config::ParseContext context{"/", ""};
                  m.mcp[name] = config::ReadMcpServerEntry(name, value, path, context, problems);
                  CheckServerCommand(m.name, name, m.mcp[name], path, problems);
                });
  ForEachExport(e, "prompts", IsPlainName, "letters, digits, '_', '.' and '-'", problems,
                [&](const std::string& name, const Json& value, const std::string& path) {
                  FieldReader r(value, path, problems);
                  if (!r.is_object()) return;
                  r.RejectUnknownKeys(kPromptKeys);
                  PromptExport prompt{name, "", ""};
                  bool has_text = r.Find("text") != nullptr;
                  if (has_text == (r.Find("path") != nullptr)) {
                    r.Report("",
                             "expected exactly one of \"text\" (the section) or \"path\" (a "
                             "file holding it)");
                  }
                  if (auto text = r.NonEmptyString("text", "the prompt section"))
                    prompt.text = *text;
                  if (auto p = r.NonEmptyString("path", "a relative file path")) {
                    CheckPackagePath(r, *p, files, nullptr);
                    prompt.path = *p;
                  }
                  m.prompts[name] = prompt;
                });
  ForEachExport(e, "models", IsPlainName, "letters, digits, '_', '.' and '-'", problems,
                [&](const std::string& name, const Json& value, const std::string& path) {
                  m.models[name] = config::ParseModelEntry(name, value, path, problems);
                  FieldReader r(value, path, problems);
                  RefuseVariables(r, "api_key", problems);
                  RefuseVariables(r, "headers", problems);
                });
  // Presets last: they refer to the exports above.
  ForEachExport(e, "agents", IsPlainName, "letters, digits, '_', '.' and '-'", problems,
                [&](const std::string& name, const Json& value, const std::string& path) {
                  FieldReader r(value, path, problems);
                  if (!r.is_object()) return;
                  size_t before = problems.size();
                  r.RejectUnknownKeys(kPresetKeys);
                  if (problems.size() != before) return;
                  // A preset's prompts name its package's own prompt exports.
                  Json agent_part = value;
                  agent_part.erase("prompts");
                  config::AgentConfig preset =
                      config::ParseAgentEntry(name, agent_part, path, problems);
                  if (const Json* prompts = r.Find("prompts")) {
                    preset.prompts = PresetPrompts(*prompts, m, r.PathOf("prompts"), problems);
                  }
                  if (problems.size() != before) return;
                  preset.explicit_keys.clear();
                  for (const auto& [key, unused] : value.items())
                    preset.explicit_keys.push_back(key);
                  CheckPresetRefs(preset, m, path, problems);
                  m.agents[name] = std::move(preset);
                });
}

Manifest ReadDocument(const Json& json, const std::set<std::string>& files,
                      std::vector<ConfigProblem>& problems) {
  Manifest m;
  if (!json.is_object()) {
    problems.push_back({"", absl::StrCat("expected a JSON object at the top level, got ",
                                         config::DescribeValue(json))});
    return m;
  }
  FieldReader doc(json, "", problems);
  doc.RejectUnknownKeys(kManifestKeys);
  doc.String("$schema");
  doc.Require("name", "the package's name (lowercase letters, digits, '_', '.' and '-')");
  doc.Require("version", "the package's version, such as \"1.0.0\"");
  doc.Require("description", "one line saying what the package holds");
  doc.Require("exports", "an object of skills, hooks, mcp, agents, prompts and models");
  if (auto name = doc.String("name"); name && CheckDisplayedText(doc, "name", *name)) {
    if (config::IsPackageAlias(*name)) {
      m.name = *name;
    } else {
      doc.Report("name", absl::StrCat(config::DescribeValue(Json(*name)),
                                      " is not a valid package name (lowercase letters, digits, "
                                      "'_', '.' and '-', at most 64, starting with a letter or "
                                      "digit)"));
    }
  }
  if (auto version = doc.NonEmptyString("version", "a version such as \"1.0.0\"");
      version && CheckDisplayedText(doc, "version", *version)) {
    m.version = *version;
  }
  if (auto description = doc.NonEmptyString("description", "one line");
      description && CheckDisplayedText(doc, "description", *description)) {
    m.description = *description;
  }
  if (auto homepage = doc.NonEmptyString("homepage", "an https:// or http:// URL");
      homepage && CheckDisplayedText(doc, "homepage", *homepage)) {
    if (!absl::StartsWith(*homepage, "https://") && !absl::StartsWith(*homepage, "http://")) {
      doc.Report("homepage", "expected an https:// or http:// URL");
    }
    m.homepage = *homepage;
  }
  if (auto license = doc.NonEmptyString("license", "an SPDX expression such as \"MIT\"");
      license && CheckDisplayedText(doc, "license", *license)) {
    m.license = *license;
  }
  ReadExports(doc, files, m, problems);
  return m;
}

std::string JoinProblems(const std::vector<ConfigProblem>& problems) {
  std::vector<std::string> lines;
  for (const ConfigProblem& p : problems) lines.push_back(p.ToString());
  return absl::StrJoin(lines, "\n");
}

}  // namespace

std::vector<std::string> Manifest::ExportNames() const {
  std::vector<std::string> names;
  auto add = [&](absl::string_view kind, const auto& map) {
    for (const auto& [key, unused] : map) names.push_back(absl::StrCat(kind, "/", key));
  };
  add(config::kExportAgent, agents);
  add(config::kExportHook, hooks);
  add(config::kExportMcp, mcp);
  add(config::kExportModel, models);
  add(config::kExportPrompt, prompts);
  add(config::kExportSkill, skills);
  return names;
}

absl::StatusOr<Manifest> ParseManifest(std::string_view text, const std::set<std::string>& files,
                                       std::vector<ConfigProblem>* problems) {
  std::vector<ConfigProblem> found;
  Manifest manifest;
  absl::StatusOr<Json> json = ParseJson(text, /*allow_comments=*/false);
  if (!json.ok()) {
    found.push_back({"", std::string(json.status().message())});
  } else {
    found = config::FindDuplicateKeys(text);
    manifest = ReadDocument(*json, files, found);
  }
  if (problems != nullptr) *problems = found;
  if (!found.empty()) return absl::InvalidArgumentError(JoinProblems(found));
  return manifest;
}

absl::StatusOr<Manifest> ReadManifest(const std::string& root, const std::set<std::string>& files) {
  std::string path = absl::StrCat(root, "/", kManifestFile);
  if (!files.contains(kManifestFile)) {
    return absl::InvalidArgumentError(
        absl::StrCat(root, " is not a package: it has no ", kManifestFile, " at its top"));
  }
  absl::StatusOr<std::string> text = ReadSmallFile(path, kMaxManifestBytes);
  if (!text.ok()) return text.status();
  absl::StatusOr<Manifest> manifest = ParseManifest(*text, files);
  if (!manifest.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is invalid:\n", manifest.status().message()));
  }
  return manifest;
}

absl::Status CheckExportFiles(const std::string& root, const std::vector<TreeEntry>& entries,
                              const Manifest& manifest) {
  std::vector<ConfigProblem> problems;
  for (const auto& [name, prompt] : manifest.prompts) {
    if (prompt.path.empty()) continue;
    // (Compared through a reference: Clang 14 cannot capture a structured
    // binding in a lambda.)
    const std::string& prompt_path = prompt.path;
    auto entry = std::find_if(entries.begin(), entries.end(),
                              [&](const TreeEntry& e) { return e.path == prompt_path; });
    const std::string path = JoinPath(JoinPath(JoinPath("exports", "prompts"), name), "path");
    if (entry != entries.end() && entry->kind == TreeEntry::Kind::kSymlink) {
      problems.push_back({path, absl::StrCat(QuoteEntryName(prompt.path),
                                             " is a symbolic link; a prompt's path must name a "
                                             "regular file of the package (the file is read "
                                             "without following links)")});
    } else if (entry != entries.end() && entry->size > kMaxPromptFileBytes) {
      // A session reads at most that much; such an export could never be used.
      problems.push_back(
          {path, absl::StrCat(QuoteEntryName(prompt.path), " holds ", entry->size,
                              " bytes; a prompt file holds at most ", kMaxPromptFileBytes,
                              " bytes (a session reads no more)")});
    }
  }
  for (const auto& [name, skill] : manifest.skills) {
    const std::string path = JoinPath(JoinPath(JoinPath("exports", "skills"), name), "path");
    absl::StatusOr<skills::Skill> read = skills::ReadSkill(absl::StrCat(root, "/", skill.path));
    if (!read.ok()) {
      problems.push_back({path, std::string(read.status().message())});
    } else if (read->name != name) {
      problems.push_back(
          {path, absl::StrCat(skill.path, "/SKILL.md names the skill \"", read->name,
                              "\"; a skill export's name is the skill's name: name the export \"",
                              read->name, "\" or the skill \"", name, "\"")});
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(root, "/", kManifestFile, " is invalid:\n", JoinProblems(problems)));
}

}  // namespace raw::packages
