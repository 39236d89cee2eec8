#include <doctest/doctest.h>

#include "src/plan/first_build_estimate.h"

using namespace fastcuda;

namespace {

// A TU as steps.json records it: device preprocess -> cicc -> ptxas, host
// preprocess -> host compile of the object.
RecordedTu Tu(const std::string& name) {
  return {"src/" + name + ".cu",
          {{"CPP_DEVICE", "compute_90", name + ".cpp1.ii", {}},
           {"CICC", "compute_90", name + ".ptx", {0}},
           {"PTXAS", "sm_90", name + ".cubin", {1}},
           {"CPP_HOST", "", name + ".cpp4.ii", {}},
           {"HOST_CC", "", name + ".o", {2, 3}}}};
}

/// `tu` with `step` before its steps, which keep their order.
RecordedTu WithFirstStep(RecordedTu tu, const RecordedStep& step) {
  for (RecordedStep& later : tu.steps) {
    for (size_t& before : later.after) ++before;
  }
  tu.steps.insert(tu.steps.begin(), step);
  return tu;
}

int64_t EstimateOf(const std::vector<NinjaLogRecord>& records, const std::string& output) {
  for (const NinjaLogRecord& record : records) {
    if (record.output == output) return record.end_ms - record.start_ms;
  }
  return -1;
}

}  // namespace

TEST_CASE("device code weight: kernels as the preprocessor writes them, and launches") {
  CHECK(DeviceCodeWeight("") == 0);
  CHECK(DeviceCodeWeight("void f() {}") == 0);
  CHECK(DeviceCodeWeight("__attribute__((global)) void k(); __attribute__((global)) void j();") == 2);
  CHECK(DeviceCodeWeight("__global__ void k(); void h() { k<<<1, 1>>>(); }") == 2);
}

namespace {

/// `count` TUs of Tu's shape, each with `more_archs` architectures' device
/// preprocessing, cicc and ptxas more: 4.6 s of work by their kinds'
/// DefaultDuration, and 3.4 s for each architecture more.
std::vector<RecordedTu> Tus(size_t count, size_t more_archs = 0) {
  std::vector<RecordedTu> tus;
  for (size_t i = 0; i < count; ++i) {
    RecordedTu tu = Tu("t" + std::to_string(i));
    for (size_t arch = 0; arch < more_archs; ++arch) {
      const size_t first = tu.steps.size();
      const std::string virtual_arch = "compute_8" + std::to_string(arch);
      const std::string real_arch = "sm_8" + std::to_string(arch);
      tu.steps.push_back({"CPP_DEVICE", virtual_arch, tu.source + "." + virtual_arch + ".ii", {}});
      tu.steps.push_back({"CICC", virtual_arch, tu.source + "." + virtual_arch + ".ptx", {first}});
      tu.steps.push_back({"PTXAS", real_arch, tu.source + "." + real_arch + ".cubin", {first + 1}});
    }
    tus.push_back(tu);
  }
  return tus;
}

}  // namespace

TEST_CASE(
    "weighing pays from two TUs to two per job slot, and beyond for long builds of several architectures") {
  CHECK_FALSE(FirstPhasePays(Tus(1), 16));
  CHECK(FirstPhasePays(Tus(2), 16));
  CHECK(FirstPhasePays(Tus(32), 16));
  CHECK_FALSE(FirstPhasePays(Tus(33), 16));
  CHECK_FALSE(FirstPhasePays(Tus(5), 2));
  CHECK_FALSE(FirstPhasePays(Tus(500), 16));    // one architecture: 144 s a slot, but light TUs look the same
  CHECK_FALSE(FirstPhasePays(Tus(59, 1), 16));  // 29.5 s a slot
  CHECK(FirstPhasePays(Tus(60, 1), 16));        // 30 s
  CHECK(FirstPhasePays(Tus(48, 4), 16));        // five architectures: 54.6 s
  CHECK_FALSE(FirstPhasePays(Tus(5, 1), 2));    // 20 s
  CHECK(FirstPhasePays(Tus(7, 4), 2));          // 63.7 s
}

TEST_CASE(
    "the weighed step heads the TU's longest chain: its first device preprocessing where cicc waits for no "
    "cudafe++") {
  RecordedTu tu = WithFirstStep(Tu("a"), {"CPP_DEVICE", "compute_80", "a.first.ii", {}});
  CHECK(WeighedStepOf(tu) == size_t{0});
  CHECK(WeighedStepOf(WithFirstStep(tu, {"CPP_HOST", "", "a.host.ii", {}})) == size_t{1});  // nvcc's order
  CHECK_FALSE(WeighedStepOf({"host.cu", {{"CPP_HOST", "", "h.ii", {}}, {"HOST_CC", "", "h.o", {0}}}}));
}

TEST_CASE("the weighed step is the host preprocessing where cicc waits for cudafe++ (nvcc's module ids)") {
  RecordedTu tu = {"src/a.cu",
                   {{"CPP_DEVICE", "compute_90", "a.cpp1.ii", {}},
                    {"CPP_HOST", "", "a.cpp4.ii", {}},
                    {"CUDAFE", "", "a.cudafe1.cpp", {1}},
                    {"CICC", "compute_90", "a.ptx", {0, 2}},
                    {"PTXAS", "sm_90", "a.cubin", {3}},
                    {"HOST_CC", "", "a.o", {2, 4}}}};
  CHECK(WeighedStepOf(tu) == size_t{1});
  tu.steps[3].after = {0};  // FastCuda's own module ids: cicc starts at the device preprocessing
  CHECK(WeighedStepOf(tu) == size_t{0});
}

TEST_CASE("estimates rank a TU with more device code first, host steps by half, known times kept") {
  std::vector<RecordedTu> tus = {Tu("light"), Tu("heavy"), Tu("unknown")};
  StepDurations known = {{"light.cpp1.ii", 120}, {"heavy.cpp1.ii", 300}};
  std::vector<NinjaLogRecord> records = EstimateRecords(tus, {1, 3, -1}, known);
  CHECK(records.size() == 3 * 5 - 2);
  CHECK(EstimateOf(records, "light.cpp1.ii") == -1);  // measured by the first phase
  // Mean weight 2: the light TU's device steps at half their default, the heavy one's at 1.5 times.
  CHECK(EstimateOf(records, "light.ptx") == DefaultDuration(StepKind::kCicc) / 2);
  CHECK(EstimateOf(records, "heavy.ptx") == DefaultDuration(StepKind::kCicc) * 3 / 2);
  CHECK(EstimateOf(records, "heavy.o") == DefaultDuration(StepKind::kHostCompile) * 5 / 4);
  CHECK(EstimateOf(records, "unknown.cubin") == DefaultDuration(StepKind::kPtxas));
  tus[2].steps[2].output = "";  // ptxas checking PTX writes nothing: no record to hold a time
  CHECK(EstimateRecords(tus, {1, 3, -1}, known).size() == records.size() - 1);
  for (const NinjaLogRecord& record : records) {
    CHECK(record.start_ms == 0);
    CHECK(record.mtime == 0);
    CHECK(record.command_hash == 0);
  }
}

TEST_CASE("estimates stay within a tenth and ten times the default") {
  std::vector<NinjaLogRecord> records =
      EstimateRecords({Tu("none"), Tu("huge"), Tu("a"), Tu("b")}, {0, 4000, 0, 0}, {});
  CHECK(EstimateOf(records, "none.ptx") == DefaultDuration(StepKind::kCicc) / 10);
  CHECK(EstimateOf(records, "huge.ptx") == DefaultDuration(StepKind::kCicc) * 4);  // 4000 / mean 1000
  records = EstimateRecords({Tu("none"), Tu("huge")}, {0, 1'000'000}, {});
  CHECK(EstimateOf(records, "huge.ptx") == DefaultDuration(StepKind::kCicc) * 2);  // against its own mean
}

TEST_CASE("first phase: the file, and whether the estimates are still where it says") {
  const std::string measured = "# ninja log v6\n0\t100\t5\ta.cpp1.ii\t1f\n";
  const std::string estimates = "0\t2000\t0\ta.ptx\t0\n0\t1000\t0\ta.cubin\t0\n";
  const FirstPhase phase{measured.size(), measured.size() + estimates.size(), 130};
  std::optional<FirstPhase> parsed = ParseFirstPhase(FormatFirstPhase(phase));
  REQUIRE(parsed);
  CHECK(parsed->estimates_begin == phase.estimates_begin);
  CHECK(parsed->build_begin == phase.build_begin);
  CHECK(parsed->build_start_ms == 130);
  CHECK_FALSE(ParseFirstPhase("9 3 0\n"));  // estimates ending before they begin
  CHECK_FALSE(ParseFirstPhase("garbage"));

  const std::string log = measured + estimates;
  CHECK(EstimatesInPlace(phase, log));
  CHECK(OnlyEstimated(phase, log));
  CHECK_FALSE(OnlyEstimated(std::nullopt, log));
  const std::string built = log + "0\t2100\t7\ta.ptx\t2e\n";
  CHECK(EstimatesInPlace(phase, built));
  CHECK_FALSE(OnlyEstimated(phase, built));  // the build measured times after them
  // Ninja rewrote the log (recompaction): the offsets point elsewhere.
  CHECK_FALSE(EstimatesInPlace(phase, "# ninja log v6\n0\t2100\t7\ta.ptx\t2e\n0\t100\t5\ta.cpp1.ii\t1f\n"));
  CHECK_FALSE(EstimatesInPlace(phase, measured));
}
