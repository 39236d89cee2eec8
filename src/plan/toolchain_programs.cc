#include "src/plan/toolchain_programs.h"

#include <set>

#include "src/base/toolchain_environment.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {
namespace {

/// Whether one of the directories of `dirs` (a PATH) holds `name`.
bool FoundIn(std::string_view dirs, const std::string& name, const FileSystem& fs) {
  while (!dirs.empty()) {
    size_t end = std::min(dirs.find(':'), dirs.size());
    std::string dir(dirs.substr(0, end));
    if (fs.IsFile((dir.empty() ? std::string(".") : dir) + "/" + name)) return true;
    dirs.remove_prefix(std::min(end + 1, dirs.size()));
  }
  return false;
}

}  // namespace

std::string IdentityKey(const ProgramIdentity& identity) { return identity.path + " " + identity.stamp; }

std::map<std::string, std::string> WithHostCompiler(std::map<std::string, std::string> toolchain,
                                                    const ProgramIdentity& host) {
  toolchain[kHostCompilerVariable] = IdentityKey(host);
  return toolchain;
}

std::vector<std::string> ProgramsOnPath(const StepGraph& graph, const FileSystem& fs) {
  auto path = graph.environment.find("PATH");
  if (path != graph.environment.end() && !path->second.ends_with(kInheritedPath)) return {};
  // nvcc's own directories, which come first (none for nvcc run whole).
  std::string_view first;
  if (path != graph.environment.end()) {
    first = std::string_view(path->second)
                .substr(0, path->second.size() - std::string_view(kInheritedPath).size());
  }
  std::set<std::string> names = {"as"};
  for (const GraphStep& step : graph.steps) {
    if (step.launcher_words >= step.argv.size()) continue;
    const std::string& word = step.argv[step.launcher_words];
    if (!word.empty() && word.find('/') == std::string::npos && !FoundIn(first, word, fs)) names.insert(word);
  }
  return {names.begin(), names.end()};
}

void IdentifyPathPrograms(StepGraph& graph, ProgramIdentifier& identifier, const FileSystem& fs) {
  std::string identities;
  for (const std::string& name : ProgramsOnPath(graph, fs)) {
    identities += name + "=" + IdentityKey(identifier.Identify(name)) + "\n";
  }
  if (!identities.empty()) graph.environment[kPathProgramsVariable] = identities;
}

ProgramIdentity ProgramIdentifier::Identify(const std::string& program) {
  // Under the lock: each program is identified once, and there are few.
  std::lock_guard<std::mutex> lock(mutex_);
  auto known = identified_.find(program);
  if (known == identified_.end()) known = identified_.emplace(program, runner_.Identify(program)).first;
  return known->second;
}

std::map<std::string, ProgramIdentity> ProgramIdentifier::Identified() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return identified_;
}

std::string ChangedPrograms(std::string_view record, const DryrunRunner& runner) {
  std::string changed;
  for (const auto& [program, then] : ParseProgramRecord(record)) {
    ProgramIdentity now = runner.Identify(program);
    if (now.path != then.path || now.stamp != then.stamp) changed += program + ": " + IdentityKey(now) + "\n";
  }
  return changed;
}

}  // namespace fastcuda
