#include "src/plan/first_build_estimate.h"

#include <re2/re2.h>

#include <algorithm>

namespace fastcuda {
namespace {

/// The host's share of a TU's work does not grow with its kernels.
bool HostSide(StepKind kind) {
  return kind == StepKind::kHostPreprocess || kind == StepKind::kCudafe || kind == StepKind::kHostCompile;
}

/// The index of the first step of `tu` of `kind`, if any.
std::optional<size_t> FirstStepOf(const RecordedTu& tu, StepKind kind) {
  for (size_t i = 0; i < tu.steps.size(); ++i) {
    if (tu.steps[i].kind == StepKindName(kind)) return i;
  }
  return std::nullopt;
}

/// True when a cicc of `tu` waits for its cudafe++, which writes the module
/// id cicc reads (nvcc's module ids): then every chain of the TU starts at
/// its host preprocessing.
bool CiccWaitsForCudafe(const RecordedTu& tu) {
  for (const RecordedStep& step : tu.steps) {
    if (step.kind != StepKindName(StepKind::kCicc)) continue;
    for (size_t before : step.after) {
      if (tu.steps[before].kind == StepKindName(StepKind::kCudafe)) return true;
    }
  }
  return false;
}

}  // namespace

int64_t DeviceCodeWeight(std::string_view preprocessed) {
  static const RE2 device_code(R"(__attribute__\(\(global\)\)|__global__|<<<)");
  re2::StringPiece input(preprocessed.data(), preprocessed.size());
  int64_t count = 0;
  while (RE2::FindAndConsume(&input, device_code)) ++count;
  return count;
}

bool FirstPhasePays(const std::vector<RecordedTu>& tus, unsigned jobs) {
  if (tus.size() < 2) return false;
  if (tus.size() <= 2 * static_cast<size_t>(jobs)) return true;
  int64_t work_ms = 0;
  size_t ciccs = 0;
  for (const RecordedTu& tu : tus) {
    for (const RecordedStep& step : tu.steps) {
      const StepKind kind = StepKindNamed(step.kind).value_or(StepKind::kUnknown);
      work_ms += DefaultDuration(kind);
      ciccs += kind == StepKind::kCicc;
    }
  }
  return ciccs >= 2 * tus.size() && work_ms >= kLongFirstBuildMs * static_cast<int64_t>(std::max(jobs, 1u));
}

std::optional<size_t> WeighedStepOf(const RecordedTu& tu) {
  std::optional<size_t> device_preprocess = FirstStepOf(tu, StepKind::kDevicePreprocess);
  if (!device_preprocess) return std::nullopt;
  if (CiccWaitsForCudafe(tu)) return FirstStepOf(tu, StepKind::kHostPreprocess).value_or(*device_preprocess);
  return device_preprocess;
}

std::vector<NinjaLogRecord> EstimateRecords(const std::vector<RecordedTu>& tus,
                                            const std::vector<int64_t>& weights, const StepDurations& known) {
  double total = 0;
  size_t weighed = 0;
  for (int64_t weight : weights) {
    if (weight >= 0) total += static_cast<double>(weight), ++weighed;
  }
  const double mean = weighed ? std::max(total / static_cast<double>(weighed), 1.0) : 1.0;
  std::vector<NinjaLogRecord> records;
  for (size_t t = 0; t < tus.size(); ++t) {
    const double scale = t < weights.size() && weights[t] >= 0
                             ? std::clamp(static_cast<double>(weights[t]) / mean, 0.1, 10.0)
                             : 1.0;
    for (const RecordedStep& step : tus[t].steps) {
      if (step.output.empty() || known.contains(step.output)) continue;  // a check that writes nothing
      const StepKind kind = StepKindNamed(step.kind).value_or(StepKind::kUnknown);
      const double factor = HostSide(kind) ? (1 + scale) / 2 : scale;
      records.push_back(
          {0, static_cast<int64_t>(static_cast<double>(DefaultDuration(kind)) * factor), 0, step.output, 0});
    }
  }
  return records;
}

std::string FormatFirstPhase(const FirstPhase& phase) {
  return std::to_string(phase.estimates_begin) + " " + std::to_string(phase.build_begin) + " " +
         std::to_string(phase.build_start_ms) + "\n";
}

std::optional<FirstPhase> ParseFirstPhase(std::string_view text) {
  static const RE2 format(R"((\d+) (\d+) (\d+)\n?)");
  FirstPhase phase;
  if (!RE2::FullMatch(text, format, &phase.estimates_begin, &phase.build_begin, &phase.build_start_ms) ||
      phase.estimates_begin > phase.build_begin) {
    return std::nullopt;
  }
  return phase;
}

bool EstimatesInPlace(const FirstPhase& phase, std::string_view ninja_log) {
  auto line_starts = [&](size_t at) {
    return at == 0 || (at <= ninja_log.size() && ninja_log[at - 1] == '\n');
  };
  if (!line_starts(phase.estimates_begin) || !line_starts(phase.build_begin)) return false;
  std::string_view estimates =
      ninja_log.substr(phase.estimates_begin, phase.build_begin - phase.estimates_begin);
  std::vector<NinjaLogRecord> records = ParseNinjaLogRecords(estimates);
  return static_cast<size_t>(std::count(estimates.begin(), estimates.end(), '\n')) == records.size() &&
         std::all_of(records.begin(), records.end(), [](const NinjaLogRecord& record) {
           return record.start_ms == 0 && record.mtime == 0 && record.command_hash == 0;
         });
}

bool OnlyEstimated(const std::optional<FirstPhase>& phase, std::string_view ninja_log) {
  return phase && ninja_log.size() == phase->build_begin && EstimatesInPlace(*phase, ninja_log);
}

}  // namespace fastcuda
