#include "src/plan/toolchain_programs.h"

#include "src/plan/graph_dir.h"

namespace fastcuda {

std::string IdentityKey(const ProgramIdentity& identity) { return identity.path + " " + identity.stamp; }

std::map<std::string, std::string> WithHostCompiler(std::map<std::string, std::string> toolchain,
                                                    const ProgramIdentity& host) {
  toolchain[kHostCompilerVariable] = IdentityKey(host);
  return toolchain;
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
