//===- measure.cpp - one case of the queued protocol, inside a worker -------===//
#include "measure.hpp"

#include <chrono>
#include <cmath>

#include "check.hpp"
#include "protocol.hpp"

namespace pb::bench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Dtype dtype_member(const json &op, const char *key) {
  auto parsed = op.contains(key) && op.at(key).is_string() ? parse_dtype(op.at(key).get<std::string>()) : std::nullopt;
  if (!parsed) throw pb::sdk::InputError(std::string("plan case op.") + key + " is not a supported dtype");
  return *parsed;
}

}  // namespace

GemmShape shape_of_case(const json &plan_case) {
  if (!plan_case.contains("op") || !plan_case.at("op").is_object())
    throw pb::sdk::InputError("plan case '" + plan_case.value("id", "?") + "' has no op");
  const json &op = plan_case.at("op");
  GemmShape shape;
  for (const char *key : {"m", "n", "k"})
    if (!op.contains(key) || !op.at(key).is_number_unsigned() || op.at(key).get<uint64_t>() == 0)
      throw pb::sdk::InputError(std::string("plan case op.") + key + " is not a positive integer");
  shape.m = op.at("m").get<uint64_t>();
  shape.n = op.at("n").get<uint64_t>();
  shape.k = op.at("k").get<uint64_t>();
  shape.a = dtype_member(op, "a");
  shape.b = dtype_member(op, "b");
  shape.out = dtype_member(op, "out");
  return shape;
}

json measure_gemm_case(Session &session, const json &plan_case, bool first_op) {
  json result{{"status", "error"}, {"reason", nullptr}, {"samples_us", nullptr}, {"check", nullptr}};
  json timing{{"first_op", first_op},
              {"warmup_calls", 0},
              {"ramp_target_ms", first_op ? kFirstOpRampMinMs : kRampMinMs},
              {"ramp_calls", 0},
              {"ramp_ms", nullptr},
              {"host_enqueue_us", nullptr},
              {"shield", nullptr}};
  try {
    GemmShape shape = shape_of_case(plan_case);
    GemmInputs inputs = make_gemm_inputs(shape, seed_for_case(plan_case.value("id", "")));
    Gemm gemm(session, shape, inputs.a.data(), inputs.b.data());
    const pb_ext_timing_backend &table = session.table();

    // 1. Numerical check, once, before any timing.
    gemm.enqueue();
    json check = check_gemm_output(shape, inputs, gemm.read_output());
    result["check"] = check;
    if (!check.at("passed").get<bool>()) {
      result["status"] = "check_failed";
      result["reason"] = "output differs from the FP64 reference beyond tolerance (max_abs_err " +
                         check.at("max_abs_err").dump() + ", worst element " + check.at("worst").dump() + ")";
      result["timing"] = timing;
      return result;
    }

    // 2. Warmup calls back to back, then one synchronize.
    for (int call_idx = 0; call_idx < kWarmupCalls; ++call_idx) gemm.enqueue();
    session.check(table.synchronize(session.raw()), "synchronize after warmup");
    timing["warmup_calls"] = kWarmupCalls;

    // 3. Wall-clock ramp: call + synchronize until the floor has passed.
    const double ramp_target_ms = first_op ? kFirstOpRampMinMs : kRampMinMs;
    Clock::time_point ramp_start = Clock::now();
    int ramp_calls = 0;
    do {
      gemm.enqueue();
      session.check(table.synchronize(session.raw()), "synchronize during ramp");
      ++ramp_calls;
    } while (ms_since(ramp_start) < ramp_target_ms);
    timing["ramp_calls"] = ramp_calls;
    timing["ramp_ms"] = ms_since(ramp_start);

    // 4. The queued samples behind one launch shield.
    std::vector<Event> starts;
    std::vector<Event> ends;
    starts.reserve(kSampleCount);
    ends.reserve(kSampleCount);
    for (int sample_idx = 0; sample_idx < kSampleCount; ++sample_idx) {
      starts.emplace_back(session);
      ends.emplace_back(session);
    }
    session.check(table.shield_enqueue(session.raw(), kShieldTimeoutS), "shield_enqueue");
    Clock::time_point enqueue_start = Clock::now();
    for (int sample_idx = 0; sample_idx < kSampleCount; ++sample_idx) {
      session.check(table.flush_enqueue(session.raw()), "flush_enqueue");
      starts[sample_idx].record();
      gemm.enqueue();
      ends[sample_idx].record();
    }
    timing["host_enqueue_us"] = ms_since(enqueue_start) * 1000.0;
    pb_status released = table.shield_release(session.raw());
    if (released == PB_ERR_INFRA) {
      timing["shield"] = "expired";
      session.check(table.synchronize(session.raw()), "synchronize after an expired shield");
      result["reason"] = std::string("the launch shield expired before the samples were queued (") +
                         table.last_error(session.raw()) + "); host launch gaps may lie inside the brackets";
      result["timing"] = timing;
      return result;
    }
    session.check(released, "shield_release");
    timing["shield"] = "held";
    session.check(table.synchronize(session.raw()), "synchronize after the samples");
    json samples = json::array();
    for (int sample_idx = 0; sample_idx < kSampleCount; ++sample_idx) {
      double elapsed_us = 0;
      session.check(table.event_elapsed_us(session.raw(), starts[sample_idx].raw(), ends[sample_idx].raw(), &elapsed_us),
                    "event_elapsed_us");
      if (!std::isfinite(elapsed_us) || elapsed_us <= 0)
        throw pb::sdk::InfraError("sample " + std::to_string(sample_idx) + " is " + std::to_string(elapsed_us) +
                                  " us; a bracket must have a positive, finite duration");
      samples.push_back(elapsed_us);
    }
    result["samples_us"] = samples;
    result["status"] = "ok";
  } catch (const pb::sdk::Error &e) {
    result["status"] = "error";
    result["reason"] = e.what();
  } catch (const std::bad_alloc &) {
    result["status"] = "error";
    result["reason"] = "out of host memory while preparing the case";
  }
  result["timing"] = timing;
  return result;
}

}  // namespace pb::bench
