#include <doctest/doctest.h>

#include <map>

#include "src/base/shell_words.h"
#include "src/graph/launchers.h"

using namespace fastcuda;

namespace {

using Words = std::vector<std::string>;

/// A step of `kind` that writes one file.
Step Writing(StepKind kind) { return {kind, "", {"prog"}, {}, {"out"}}; }

/// `launchers` with every program whose version matters at `version`.
StepLaunchers At(StepLaunchers launchers, const std::string& version) {
  AddLauncherVersions(launchers, [version](const std::string&) { return version; });
  return launchers;
}

/// The kinds, in the order of kKinds below, whose steps `launchers` prefixes
/// with `expected`, every program being at `version`; a kind it prefixes
/// with another launcher marked `*`.
std::string Prefixed(const StepLaunchers& launchers, const Words& expected,
                     const std::string& version = "0.10.1") {
  static constexpr StepKind kKinds[] = {
      StepKind::kHostPreprocess, StepKind::kDevicePreprocess, StepKind::kCudafe, StepKind::kCicc,
      StepKind::kPtxas,          StepKind::kFatbinary,        StepKind::kNvlink, StepKind::kHostCompile};
  std::string kinds;
  for (StepKind kind : kKinds) {
    Words launcher = LauncherFor(At(launchers, version), Writing(kind));
    if (!launcher.empty()) kinds += (launcher == expected ? "" : "*") + std::string(StepKindName(kind)) + " ";
  }
  return kinds;
}

}  // namespace

TEST_CASE("the nvcc command's own launcher runs the steps its tool is known to run") {
  CHECK(Prefixed({{}, {}, {"ccache"}}, {"ccache"}) == "HOST_CC ");
  CHECK(Prefixed({{}, {}, {"/usr/bin/distcc"}}, {"/usr/bin/distcc"}) == "HOST_CC ");
  CHECK(Prefixed({{}, {}, {"icecc"}}, {"icecc"}) == "HOST_CC ");
  CHECK(Prefixed({{}, {}, {"sccache"}}, {"sccache"}) == "CUDAFE CICC PTXAS HOST_CC ");
  // sccache learnt cicc and ptxas in 0.9 and cudafe++ in 0.10; older ones
  // (Debian 12 has 0.4) fail on them.
  CHECK(Prefixed({{}, {}, {"sccache"}}, {"sccache"}, "0.9.0") == "CICC PTXAS HOST_CC ");
  CHECK(Prefixed({{}, {}, {"sccache"}}, {"sccache"}, "0.4.0-pre.6") == "HOST_CC ");
  CHECK(Prefixed({{}, {}, {"sccache"}}, {"sccache"}, "") == "HOST_CC ");
  // A tool not in the table (a wrapper script) keeps running the host compile only.
  CHECK(Prefixed({{}, {}, {"my-wrapper", "-v"}}, {"my-wrapper", "-v"}) == "HOST_CC ");
  CHECK(Prefixed({}, {}) == "");
}

TEST_CASE("FASTCUDA_DEVICE_LAUNCHER: cicc, ptxas and fatbinary, as far as a known tool runs them") {
  CHECK(Prefixed({{}, {"rexec", "--remote"}, {}}, {"rexec", "--remote"}) == "CICC PTXAS FATBINARY ");
  CHECK(Prefixed({{}, {"sccache"}, {}}, {"sccache"}) == "CUDAFE CICC PTXAS ");
  CHECK(Prefixed({{}, {"sccache"}, {}}, {"sccache"}, "0.9.1") == "CICC PTXAS ");
  CHECK(Prefixed({{}, {"sccache"}, {}}, {"sccache"}, "0.8.2") == "");
  CHECK(Prefixed({{}, {"ccache"}, {}}, {"ccache"}) == "");
  // FastCuda's client: fatbinary stays local (cudafe++ here reads no module id
  // of its own); preprocessing and the host compile are cached here (below)
  std::vector<std::string> remote = RemoteLauncher("/opt/bin/fastcuda-remote", "grpc://h:1");
  CHECK(Prefixed({{}, remote, {}}, remote) == "*CPP_HOST *CPP_DEVICE CUDAFE CICC PTXAS *HOST_CC ");
}

TEST_CASE(
    "FastCuda's client caches preprocessing and the host compile here, unless another launcher runs it") {
  Words remote = RemoteLauncher("/opt/bin/fastcuda-remote", "grpc://h:1");
  Words here = CachedHereLauncher(remote);
  CHECK(here == Words{"/opt/bin/fastcuda-remote", "--cache-only", "--remote", "grpc://h:1"});
  CHECK(CachesHere(here));
  CHECK_FALSE(RunsRemotely(here));  // it runs here, in the local pool and the memory budget
  CHECK_FALSE(CachesHere(remote));
  CHECK(Prefixed({{}, remote, {}}, here) == "CPP_HOST CPP_DEVICE *CUDAFE *CICC *PTXAS HOST_CC ");
  // A host launcher, or the nvcc command's own (a whole-call cache), keeps the host compile
  CHECK(Prefixed({{"ccache"}, remote, {}}, here) == "CPP_HOST CPP_DEVICE *CUDAFE *CICC *PTXAS *HOST_CC ");
  CHECK(Prefixed({{}, remote, {"ccache"}}, here) == "CPP_HOST CPP_DEVICE *CUDAFE *CICC *PTXAS *HOST_CC ");
  // Another device launcher caches nothing here
  CHECK(Prefixed({{}, {"sccache"}, {}}, {"sccache"}) == "CUDAFE CICC PTXAS ");
}

TEST_CASE("FASTCUDA_HOST_LAUNCHER: the host compile only, never preprocessing") {
  CHECK(Prefixed({{"distcc"}, {}, {}}, {"distcc"}) == "HOST_CC ");
  CHECK(Prefixed({{"my-remote-runner"}, {}, {}}, {"my-remote-runner"}) == "HOST_CC ");
  CHECK(Prefixed({{"sccache"}, {}, {}}, {"sccache"}) == "HOST_CC ");
}

TEST_CASE("a class's own launcher replaces the nvcc command's for that class only") {
  StepLaunchers launchers{{"distcc"}, {}, {"sccache"}};
  CHECK(LauncherFor(At(launchers, "0.9"), Writing(StepKind::kHostCompile)) == Words{"distcc"});
  CHECK(LauncherFor(At(launchers, "0.9"), Writing(StepKind::kCicc)) == Words{"sccache"});
  launchers.device = {"ccache"};  // ccache runs no device step: none gets sccache either
  CHECK(LauncherFor(At(launchers, "0.9"), Writing(StepKind::kCicc)).empty());
}

TEST_CASE("cudafe++ goes through sccache only where it writes the module id, which sccache's key lacks") {
  StepLaunchers launchers = At({{}, {"sccache"}, {}}, "0.16.0");
  Step writes_id{StepKind::kCudafe,
                 "",
                 {"cudafe++", "--gen_module_id_file", "--module_id_file_name", "k.module_id", "k.cpp4.ii"},
                 {},
                 {"k.cudafe1.cpp", "k.module_id"}};
  CHECK(LauncherFor(launchers, writes_id) == Words{"sccache"});
  CHECK(LauncherFor(At({{}, {}, {"sccache"}}, "0.16.0"), writes_id) == Words{"sccache"});
  Step reads_id = writes_id;  // FASTCUDA_MODULE_ID=own: the id is FastCuda's, an input
  std::erase(reads_id.argv, "--gen_module_id_file");
  reads_id.outputs = {"k.cudafe1.cpp"};
  CHECK(LauncherFor(launchers, reads_id).empty());
  // FastCuda's remote client runs it on the same terms; another remote runner never.
  StepLaunchers remote{{}, RemoteLauncher("/opt/bin/fastcuda-remote", "grpc://h:1"), {}};
  CHECK(LauncherFor(remote, writes_id) == remote.device);
  CHECK(LauncherFor(remote, reads_id).empty());
  CHECK(LauncherFor(StepLaunchers{{}, {"rexec"}, {}}, writes_id).empty());
}

TEST_CASE("a step that writes no file (ptxas checking a PTX-only target) runs locally") {
  Step check{StepKind::kPtxas, "compute_90", {"ptxas", "-arch=compute_90", "x.ptx"}, {}, {}};
  CHECK(LauncherFor(At({{}, {"rexec"}, {"sccache"}}, "0.9"), check).empty());
}

TEST_CASE("the launcher variables are read as shell words") {
  std::map<std::string, std::string> environment = {{"FASTCUDA_HOST_LAUNCHER", "env 'A=b c' ccache"},
                                                    {"FASTCUDA_DEVICE_LAUNCHER", ""}};
  StepLaunchers launchers = LaunchersFrom(environment);
  CHECK(launchers.host == Words{"env", "A=b c", "ccache"});
  CHECK(launchers.device.empty());
  environment["FASTCUDA_DEVICE_LAUNCHER"] = "rexec 'unterminated";
  CHECK_THROWS_WITH_AS(LaunchersFrom(environment), doctest::Contains("FASTCUDA_DEVICE_LAUNCHER"),
                       ShellSyntaxError);
}

TEST_CASE("FASTCUDA_REMOTE makes FastCuda's remote client the device launcher, with its endpoint") {
  std::map<std::string, std::string> environment = {{"FASTCUDA_REMOTE", "grpc://10.0.0.1:8980"}};
  CHECK(LaunchersFrom(environment, "/opt/bin/fastcuda-remote").device ==
        Words{"/opt/bin/fastcuda-remote", "--remote", "grpc://10.0.0.1:8980"});
  CHECK(LaunchersFrom(environment, "/opt/bin/fastcuda-remote").host.empty());
  // A launcher the user named wins; a FastCuda without the client has none.
  environment["FASTCUDA_DEVICE_LAUNCHER"] = "rewrapper";
  CHECK(LaunchersFrom(environment, "/opt/bin/fastcuda-remote").device == Words{"rewrapper"});
  environment.erase("FASTCUDA_DEVICE_LAUNCHER");
  CHECK(LaunchersFrom(environment, "").device.empty());
}

TEST_CASE("the remote kinds: the device compiles and cudafe++ a remote runs, else none") {
  StepLaunchers launchers = LaunchersFrom({{"FASTCUDA_REMOTE", "grpc://h:1"}}, "/opt/bin/fastcuda-remote");
  // FastCuda's client: not fatbinary, milliseconds locally against a round trip
  const std::set<StepKind> compiles = {StepKind::kCicc, StepKind::kPtxas};
  std::set<StepKind> with_cudafe = compiles;
  with_cudafe.insert(StepKind::kCudafe);
  CHECK(RemoteKinds(launchers, {}, ModuleIdMode::kNvcc) == with_cudafe);
  CHECK(RemoteKinds(launchers, {}, ModuleIdMode::kOwn) == compiles);  // cudafe++ reads FastCuda's id: local
  // Another device launcher distributes only where the user gives it remote
  // jobs, and only what it runs: sccache cicc and ptxas from 0.9 on
  StepLaunchers sccache = LaunchersFrom({{"FASTCUDA_DEVICE_LAUNCHER", "sccache"}});
  sccache.versions["sccache"] = "0.16.0";
  CHECK(RemoteKinds(sccache, {}, ModuleIdMode::kNvcc).empty());
  CHECK(RemoteKinds(sccache, {{"FASTCUDA_REMOTE_JOBS", "15"}}, ModuleIdMode::kNvcc) == compiles);
  sccache.versions["sccache"] = "0.8.2";
  CHECK(RemoteKinds(sccache, {{"FASTCUDA_REMOTE_JOBS", "15"}}, ModuleIdMode::kNvcc).empty());
  StepLaunchers rewrapper = LaunchersFrom({{"FASTCUDA_DEVICE_LAUNCHER", "rewrapper"}});
  CHECK(RemoteKinds(rewrapper, {{"FASTCUDA_REMOTE_JOBS", "15"}}, ModuleIdMode::kNvcc) ==
        std::set<StepKind>{StepKind::kCicc, StepKind::kPtxas, StepKind::kFatbinary});
  CHECK(RemoteKinds(StepLaunchers{}, {{"FASTCUDA_REMOTE_JOBS", "15"}}, ModuleIdMode::kNvcc).empty());
  // A host launcher that distributes (distcc, sccache-dist) takes the host compile.
  StepLaunchers distcc = LaunchersFrom({{"FASTCUDA_HOST_LAUNCHER", "distcc"}});
  CHECK(RemoteKinds(distcc, {}, ModuleIdMode::kNvcc).empty());
  CHECK(RemoteKinds(distcc, {{"FASTCUDA_REMOTE_JOBS", "48"}}, ModuleIdMode::kNvcc) ==
        std::set<StepKind>{StepKind::kHostCompile});
  StepLaunchers both_sccache =
      LaunchersFrom({{"FASTCUDA_HOST_LAUNCHER", "sccache"}, {"FASTCUDA_DEVICE_LAUNCHER", "sccache"}});
  CHECK(RemoteKinds(both_sccache, {{"FASTCUDA_REMOTE_JOBS", "15"}}, ModuleIdMode::kNvcc)
            .count(StepKind::kHostCompile));
  // A cache of host compiles here stays local beside FastCuda's remote client.
  StepLaunchers cached = LaunchersFrom(
      {{"FASTCUDA_HOST_LAUNCHER", "ccache"}, {"FASTCUDA_REMOTE", "grpc://h:1"}}, "/opt/bin/fastcuda-remote");
  CHECK_FALSE(RemoteKinds(cached, {{"FASTCUDA_REMOTE_JOBS", "64"}}, ModuleIdMode::kNvcc)
                  .count(StepKind::kHostCompile));
}

TEST_CASE("planning runs no program: only the versions that matter are asked for, once, at the edge") {
  std::vector<std::string> asked;
  VersionProbe probe = [&](const std::string& program) {
    asked.push_back(program);
    return std::string("0.10");
  };
  StepLaunchers launchers{{"ccache"}, {"/opt/sccache"}, {"/opt/sccache"}};
  AddLauncherVersions(launchers, probe);
  AddLauncherVersion(launchers.versions, {"distcc"}, probe);
  CHECK(asked == Words{"/opt/sccache"});
  CHECK(launchers.versions == std::map<std::string, std::string>{{"/opt/sccache", "0.10"}});
  CHECK(LauncherFor(launchers, Writing(StepKind::kCicc)) == Words{"/opt/sccache"});
  launchers.versions.clear();  // an unknown version is too old for cicc
  CHECK(LauncherFor(launchers, Writing(StepKind::kCicc)).empty());
}

TEST_CASE("sccache's steps are keyed without its direct mode, as sccache nvcc's, unless the user chose") {
  using Variables = std::map<std::string, std::string>;
  CHECK(LauncherVariables({"/opt/sccache", "g++", "-c"}, {}) == Variables{{"SCCACHE_DIRECT", "false"}});
  CHECK(LauncherVariables({"sccache", "cicc"}, {{"PATH", "/bin"}}) == Variables{{"SCCACHE_DIRECT", "false"}});
  CHECK(LauncherVariables({"sccache", "g++"}, {{"SCCACHE_DIRECT", "true"}}).empty());
  CHECK(LauncherVariables({"ccache", "g++"}, {}).empty());
  CHECK(LauncherVariables({"g++", "-c"}, {}).empty());
  CHECK(LauncherVariables({}, {}).empty());
}

TEST_CASE("a launcher that tells no version is named: the steps that need one run without it") {
  CHECK(UnversionedLaunchersReport({{"/usr/bin/sccache", "0.16.0"}}).empty());
  CHECK(UnversionedLaunchersReport({{"sccache", ""}, {"/opt/ccache", "4.8"}}) ==
        "fastcuda: `sccache --version` told no version (is it on PATH?): the steps that need a version of it "
        "run without it\n");
}
