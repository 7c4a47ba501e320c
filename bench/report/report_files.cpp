// report_files.cpp — see report_files.h.
#include "report/report_files.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <stdexcept>

#include "command_line.h"
#include "report/json_file.h"
#include "report/rooflines.h"
#include "svg_text.h"

namespace amxqa::bench {
namespace {

std::string fmt(double v, const char* f = "%.4g") {
  if (!std::isfinite(v)) return "—";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Whole-looking figures (tok/s, bytes) in full, small ones to 4 digits.
std::string fmt_num(double v) {
  if (!std::isfinite(v)) return "—";
  return std::fabs(v) >= 1000 ? fmt(v, "%.0f") : fmt(v, "%.4g");
}

std::string fmt_bytes(double v) {
  if (!std::isfinite(v)) return "—";
  char buf[64];
  if (v >= 1 << 20)
    std::snprintf(buf, sizeof buf, "%.2f MiB", v / (1 << 20));
  else if (v >= 1 << 10)
    std::snprintf(buf, sizeof buf, "%.1f KiB", v / (1 << 10));
  else
    std::snprintf(buf, sizeof buf, "%.0f B", v);
  return buf;
}

double counter(const BenchResult* r, const char* name) {
  if (!r) return std::nan("");
  auto it = r->counters.find(name);
  return it == r->counters.end() ? std::nan("") : it->second;
}

// The run with the largest roofline_frac among names starting with prefix.
const BenchResult* best_with_prefix(const ResultSet& runs, const std::string& prefix) {
  const BenchResult* best = nullptr;
  for (const BenchResult& r : runs.results()) {
    if (r.name.compare(0, prefix.size(), prefix) != 0) continue;
    const BenchResult* rep = runs.find(r.name);
    if (rep && counter(rep, "roofline_frac") > (best ? counter(best, "roofline_frac") : -1.0))
      best = rep;
  }
  return best;
}

// A measurement as the result files have always written it: null when not
// finite, whole numbers (byte counts) with every digit, others to 6
// significant digits.
Json number(double d) {
  auto whole = [](double v) { return v == std::floor(v) && std::fabs(v) < 1e15; };
  if (!std::isfinite(d)) return nullptr;
  if (whole(d)) return static_cast<int64_t>(d);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", d);
  const double rounded = std::strtod(buf, nullptr);
  // 123456.7 was written "123457": an integer, not "123457.0".
  if (whole(rounded)) return static_cast<int64_t>(rounded);
  return rounded;
}

Json summary_json(const Summary& s) {
  Json j = Json::object();
  j["cpu"] = s.cpu;
  j["backend"] = s.backend;
  auto numbers = summary_numbers(s);
  j["peak_fp32_gflops"] = number(numbers[0].second);
  j["peak_bf16_gflops"] = number(numbers[1].second);
  Json& bw = j["bw_gbs"] = Json::object();
  for (const auto& [label, gbs] : s.bw_gbs) bw[label] = number(gbs);
  for (size_t i = 2; i < numbers.size(); ++i) j[numbers[i].first] = number(numbers[i].second);
  for (const auto& [key, values] : shipped_objects(s)) {
    Json& o = j[key] = Json::object();
    for (const auto& [isa, v] : *values) o[isa] = number(v);
  }
  return j;
}

// A roofline ceiling; 0 (not measured on this CPU) is written as null.
Json ceiling(double v) { return number(v > 0 ? v : std::nan("")); }

Json cpu_json(const CpuIdentity& cpu) {
  Json isa_flags = Json::object();
  for (const auto& [name, on] : cpu.isa_flags) isa_flags[name] = on;
  return {
      {"vendor", cpu.vendor},
      {"model_name", cpu.model_name},
      {"cpuinfo_package", cpu.package_name},
      {"family", cpu.family},
      {"model", cpu.model},
      {"stepping", cpu.stepping},
      {"cores", cpu.cores},
      {"logical_processors", cpu.logical_processors},
      {"cache_bytes", {{"l1d", cpu.l1d_bytes}, {"l2", cpu.l2_bytes}, {"l3", cpu.l3_bytes}}},
      {"isa_flags", isa_flags},
      {"amx", {{"usable", cpu.amx_usable}, {"reason", cpu.amx_reason}}},
      {"best_isa", cpu.best_isa},
      {"AMXQA_MAX_ISA", cpu.max_isa_env},
  };
}

Json build_json(const CpuIdentity& cpu) {
  return {
      {"git_commit", cpu.git_commit},     {"git_dirty", cpu.git_dirty},
      {"compiler", cpu.compiler},         {"cxx_flags", cpu.cxx_flags},
      {"build_type", cpu.build_type},
  };
}

Json run_json(const RunInfo& run) {
  return {
      {"mode", run.quick ? "quick" : "full"},
      {"started_utc", run.started_utc},
      {"command_line", run.command_line},
      {"wall_seconds", number(run.wall_seconds)},
      {"harness_peak_rss_bytes", run.harness_peak_rss_bytes},
      {"load_average_start", run.load_average_start},
      {"load_average_end", run.load_average_end},
  };
}

// The member at path a.b.c of j, or an empty object's null.
const Json& at(const Json& j, std::initializer_list<const char*> path) {
  static const Json null_json;
  const Json* v = &j;
  for (const char* k : path) {
    v = member(*v, k);
    if (!v) return null_json;
  }
  return *v;
}
template <class T>
T get_or(const Json& j, std::initializer_list<const char*> path, T fallback) {
  const Json& v = at(j, path);
  try {
    return v.is_null() ? fallback : v.get<T>();
  } catch (const std::exception&) {
    return fallback;
  }
}

CpuIdentity cpu_from(const Json& ctx) {
  CpuIdentity c;
  c.cpu_id = get_or<std::string>(ctx, {"cpu_id"}, "unknown-cpu");
  c.vendor = get_or<std::string>(ctx, {"cpu", "vendor"}, "");
  c.model_name = get_or<std::string>(ctx, {"cpu", "model_name"}, "");
  c.package_name = get_or<std::string>(ctx, {"cpu", "cpuinfo_package"}, "");
  c.family = get_or<uint32_t>(ctx, {"cpu", "family"}, 0);
  c.model = get_or<uint32_t>(ctx, {"cpu", "model"}, 0);
  c.stepping = get_or<uint32_t>(ctx, {"cpu", "stepping"}, 0);
  c.cores = get_or<uint32_t>(ctx, {"cpu", "cores"}, 0);
  c.logical_processors = get_or<uint32_t>(ctx, {"cpu", "logical_processors"}, 0);
  c.l1d_bytes = get_or<uint64_t>(ctx, {"cpu", "cache_bytes", "l1d"}, 0);
  c.l2_bytes = get_or<uint64_t>(ctx, {"cpu", "cache_bytes", "l2"}, 0);
  c.l3_bytes = get_or<uint64_t>(ctx, {"cpu", "cache_bytes", "l3"}, 0);
  const Json& flags = at(ctx, {"cpu", "isa_flags"});
  if (flags.is_object())
    for (const auto& [k, v] : flags.items()) c.isa_flags.emplace_back(k, v.is_boolean() && v.get<bool>());
  c.amx_usable = get_or<bool>(ctx, {"cpu", "amx", "usable"}, false);
  c.amx_reason = get_or<std::string>(ctx, {"cpu", "amx", "reason"}, "");
  c.best_isa = get_or<std::string>(ctx, {"cpu", "best_isa"}, "");
  c.max_isa_env = get_or<std::string>(ctx, {"cpu", "AMXQA_MAX_ISA"}, "");
  c.git_commit = get_or<std::string>(ctx, {"build", "git_commit"}, "unknown");
  c.git_dirty = get_or<bool>(ctx, {"build", "git_dirty"}, false);
  c.compiler = get_or<std::string>(ctx, {"build", "compiler"}, "");
  c.cxx_flags = get_or<std::string>(ctx, {"build", "cxx_flags"}, "");
  c.build_type = get_or<std::string>(ctx, {"build", "build_type"}, "");
  return c;
}

RunInfo run_from(const Json& ctx) {
  RunInfo r;
  r.quick = get_or<std::string>(ctx, {"run", "mode"}, "full") == "quick";
  r.started_utc = get_or<std::string>(ctx, {"run", "started_utc"}, "");
  r.command_line = get_or<std::string>(ctx, {"run", "command_line"}, "");
  r.wall_seconds = get_or<double>(ctx, {"run", "wall_seconds"}, std::nan(""));
  r.harness_peak_rss_bytes = get_or<int64_t>(ctx, {"run", "harness_peak_rss_bytes"}, 0);
  r.load_average_start = get_or<std::string>(ctx, {"run", "load_average_start"}, "");
  r.load_average_end = get_or<std::string>(ctx, {"run", "load_average_end"}, "");
  return r;
}

}  // namespace

Json run_context(const CpuIdentity& cpu, const RunInfo& run, const Json& model) {
  return {{"cpu_id", cpu.cpu_id}, {"run", run_json(run)}, {"cpu", cpu_json(cpu)},
          {"build", build_json(cpu)}, {"model", model}};
}

Report read_report(const Json& doc) {
  const Json& ctx = at(doc, {"context", "amxqa"});
  if (!ctx.is_object()) throw std::runtime_error("no context.amxqa: not an amxqa-bench run");
  Report r;
  r.cpu = cpu_from(ctx);
  r.run = run_from(ctx);
  r.model = at(ctx, {"model"}).is_object() ? at(ctx, {"model"}) : Json::object();
  r.runs = results_from_gbench(doc);
  fill_rooflines(r.runs);
  annotate_kernel_rooflines(r.runs);
  r.summary = make_summary(r.runs, r.cpu);
  return r;
}

std::string render_json(const Report& rep) {
  const CpuIdentity& cpu = rep.cpu;
  const ResultSet& runs = rep.runs;
  Json j = Json::object();
  j["schema"] = "amxqa-bench/1";
  j["cpu_id"] = cpu.cpu_id;
  j["run"] = run_json(rep.run);
  j["cpu"] = cpu_json(cpu);
  j["build"] = build_json(cpu);

  const Rooflines& r = rooflines();
  Json read_bw = Json::object();
  for (const auto& [bytes, gbs] : r.read_gbs) read_bw[size_label(bytes)] = number(gbs);
  j["rooflines"] = {
      {"fp32_avx2_gflops", ceiling(r.fp32_avx2_gflops)},
      {"fp32_avx512_gflops", ceiling(r.fp32_avx512_gflops)},
      {"bf16_dot_gflops", ceiling(r.bf16_gflops)},
      {"int8_vnni_gops", ceiling(r.int8_gops)},
      {"amx_bf16_gflops", ceiling(r.amx_bf16_gflops)},
      {"read_bw_gbs", read_bw},
  };

  Json& model = j["model"] = rep.model;
  const BenchResult* answer = runs.find("BM_model_answer_auto");
  model["session_bytes_4096_tokens"] = number(counter(answer, "session_bytes"));
  model["answer_peak_rss_bytes"] = number(counter(answer, "peak_rss_bytes"));
  model["answers"] = number(counter(answer, "answers"));
  model["answer_p90_ms"] = number(counter(answer, "p90_ms"));
  model["answer_p50_wall_ms"] = number(counter(answer, "p50_wall_ms"));
  model["answer_p99_wall_ms"] = number(counter(answer, "p99_wall_ms"));

  Json& benchmarks = j["benchmarks"] = Json::array();
  for (const BenchResult& b : runs.results()) {
    Json o = Json::object();
    o["name"] = b.name;
    if (!b.aggregate.empty()) o["aggregate"] = b.aggregate;
    o["iterations"] = b.iterations;
    o["repetitions"] = b.repetitions;
    o["real_time"] = number(b.real_time);
    o["cpu_time"] = number(b.cpu_time);
    o["time_unit"] = b.time_unit;
    if (!b.label.empty()) o["label"] = b.label;
    if (!b.error.empty()) o["error"] = b.error;
    Json& counters = o["counters"] = Json::object();
    for (const auto& [k, v] : b.counters) counters[k] = number(v);
    benchmarks.push_back(std::move(o));
  }

  j["summary"] = summary_json(rep.summary);
  // Invalid UTF-8 (from /proc/cpuinfo or argv) becomes U+FFFD instead of throwing.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string render_markdown(const Report& rep) {
  const CpuIdentity& cpu = rep.cpu;
  const Summary& s = rep.summary;
  const ResultSet& runs = rep.runs;
  const RunInfo& run = rep.run;
  std::string md;
  auto line = [&](const std::string& l) { md += l + "\n"; };
  line("# amxqa-bench: " + cpu.cpu_id);
  line("");
  line(std::string("`") + run.command_line + "` — " + (run.quick ? "quick" : "full") + " run, " +
       fmt(run.wall_seconds, "%.0f") + " s, " + run.started_utc + ", commit `" +
       cpu.git_commit.substr(0, 12) + (cpu.git_dirty ? "` (dirty)" : "`") + ", load average " +
       run.load_average_start + " → " + run.load_average_end + ".");
  line("");
  line("| CPU | |");
  line("|---|---|");
  line("| model | " + cpu.model_name + " (family " + std::to_string(cpu.family) + ", model " +
       std::to_string(cpu.model) + ") |");
  line("| caches | L1d " + fmt_bytes(double(cpu.l1d_bytes)) + ", L2 " +
       fmt_bytes(double(cpu.l2_bytes)) + ", L3 " + fmt_bytes(double(cpu.l3_bytes)) + " |");
  std::string flags;
  for (const auto& [name, on] : cpu.isa_flags)
    if (on) flags += (flags.empty() ? "" : " ") + name;
  line("| ISA | " + flags + " |");
  line("| AMX | " + cpu.amx_reason + " |");
  line("| backend | " + s.backend + " |");
  line("| compiler | " + cpu.compiler + " `" + cpu.cxx_flags + "` " + cpu.build_type + " |");
  line("");
  line("![roofline fractions and throughputs](" + cpu.cpu_id + ".svg)");
  line("");
  line("## Summary");
  line("");
  line("| key | value |");
  line("|---|---|");
  line("| cpu | " + s.cpu + " |");
  line("| backend | " + s.backend + " |");
  for (const auto& [k, v] : summary_numbers(s)) {
    const bool bytes = std::strstr(k, "_bytes") != nullptr;
    line(std::string("| ") + k + " | " + fmt_num(v) +
         (bytes && std::isfinite(v) ? " (" + fmt_bytes(v) + ")" : "") + " |");
  }
  for (const auto& [label, gbs] : s.bw_gbs) line("| bw_gbs." + label + " | " + fmt_num(gbs) + " |");
  for (const auto& [key, values] : shipped_objects(s))
    for (const auto& [isa, v] : *values) line(std::string("| ") + key + "." + isa + " | " + fmt_num(v) + " |");
  line("");
  line(
      "Times are thread CPU time where the machine was shared (answer latency, prefill) and "
      "Google Benchmark's CPU time for rates, so other processes do not inflate them; "
      "wall-clock answer latency is in the JSON (model.answer_p50_wall_ms).");
  line("");
  line(
      "Roofline fractions: prefill = model FLOPs/s ÷ the compute peak of the backend and weight "
      "dtype; decode = (weight bytes per token × tok/s) ÷ the read bandwidth of the smallest "
      "measured buffer that holds those bytes; training = 3 × forward FLOPs/s ÷ the f32 peak.");
  line("");
  line("## All benchmarks");
  line("");
  line("| benchmark | CPU time | counters |");
  line("|---|---|---|");
  for (const BenchResult& b : runs.results()) {
    if (!b.aggregate.empty() && b.aggregate != "median") continue;
    std::string counters;
    for (const auto& [k, v] : b.counters)
      counters += (counters.empty() ? "" : ", ") + k + " " + fmt_num(v);
    std::string name = b.name + (b.aggregate.empty() ? "" : " (median)");
    if (!b.label.empty()) name += " [" + b.label + "]";
    line("| " + name + " | " +
         (b.error.empty() ? fmt_num(b.cpu_time) + " " + b.time_unit : "skipped: " + b.error) +
         " | " + counters + " |");
  }
  return md;
}

std::string render_svg(const Report& rep) {
  const Summary& s = rep.summary;
  const ResultSet& runs = rep.runs;
  struct Row {
    std::string label;
    double frac;  // bar length, 0..1
    std::string text;
  };
  std::vector<Row> fracs = {
      {"prefill (tok/s)", s.prefill_roofline_frac, fmt(s.prefill_tok_s, "%.0f") + " tok/s"},
      {"decode (tok/s)", s.decode_roofline_frac, fmt(s.decode_tok_s, "%.0f") + " tok/s"},
      {"training (tok/s)", s.train_roofline_frac, fmt(s.train_tok_s, "%.0f") + " tok/s"},
  };
  auto add_best = [&](const char* label, const std::string& prefix, const char* unit_counter,
                      const char* unit) {
    if (const BenchResult* r = best_with_prefix(runs, prefix))
      fracs.push_back({std::string(label) + " [" +
                           (r->label.empty() ? r->name.substr(prefix.size()) : r->label) + "]",
                       counter(r, "roofline_frac"),
                       fmt(counter(r, unit_counter), "%.1f") + " " + unit});
  };
  add_best("sgemm", "BM_sgemm_", "GFLOP/s", "GFLOP/s");
  add_best("expert GEMM, prefill", "BM_ops_moe_experts_prefill_", "GFLOP/s", "GFLOP/s");
  add_best("expert GEMV, decode", "BM_ops_moe_experts_decode_", "GB/s", "GB/s");
  add_best("readout, 150 rows", "BM_ops_readout_masked_", "GB/s", "GB/s");
  add_best("readout, all V rows", "BM_ops_readout_full_", "GB/s", "GB/s");

  std::vector<Row> peaks;
  const Rooflines& r = rooflines();
  double max_peak = 0, max_bw = 0;
  for (double v : {r.fp32_gflops(), r.bf16_gflops, r.int8_gops, r.amx_bf16_gflops})
    max_peak = std::fmax(max_peak, v);
  for (const auto& [b, g] : r.read_gbs) max_bw = std::fmax(max_bw, g);
  auto add_peak = [&](const char* label, double v, const char* unit) {
    if (v > 0) peaks.push_back({label, v / max_peak, fmt(v, "%.1f") + " " + unit});
  };
  add_peak("f32 FMA peak", r.fp32_gflops(), "GFLOP/s");
  add_peak("bf16 dot peak", r.bf16_gflops, "GFLOP/s");
  add_peak("int8 VNNI peak", r.int8_gops, "GOP/s");
  add_peak("AMX bf16 tile peak", r.amx_bf16_gflops, "GFLOP/s");
  std::vector<Row> bws;
  for (const auto& [b, g] : r.read_gbs)
    bws.push_back({"read " + size_label(b), g / max_bw, fmt(g, "%.1f") + " GB/s"});

  const int W = 760, label_w = 230, bar_w = 360, row_h = 22;
  std::string body;
  int y = 40;
  auto section = [&](const std::string& title, const std::vector<Row>& rows, const char* color,
                     bool percent) {
    body += "<text x=\"10\" y=\"" + std::to_string(y) + "\" font-weight=\"bold\">" +
            eval::svg_escape(title) + "</text>\n";
    y += 10;
    for (const Row& row : rows) {
      const double f = std::isfinite(row.frac) ? std::fmin(std::fmax(row.frac, 0.0), 1.0) : 0.0;
      body += "<text x=\"10\" y=\"" + std::to_string(y + 15) + "\">" + eval::svg_escape(row.label) +
              "</text>\n";
      body += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 3) +
              "\" width=\"" + std::to_string(bar_w) + "\" height=\"16\" fill=\"#eeeeee\"/>\n";
      body += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 3) +
              "\" width=\"" + fmt(f * bar_w, "%.1f") + "\" height=\"16\" fill=\"" + color +
              "\"/>\n";
      std::string text = row.text;
      if (percent)
        text =
            (std::isfinite(row.frac) ? fmt(100.0 * row.frac, "%.1f") + "%" : "n/a") + "  " + text;
      body += "<text x=\"" + std::to_string(label_w + bar_w + 8) + "\" y=\"" +
              std::to_string(y + 15) + "\">" + eval::svg_escape(text) + "</text>\n";
      y += row_h;
    }
    y += 18;
  };
  section("Fraction of roofline (bar = measured / ceiling)", fracs, "#3b7dd8", true);
  section("Compute ceilings (one core)", peaks, "#d8863b", false);
  section("Read bandwidth by buffer size (one core)", bws, "#4caf50", false);

  return eval::svg_open(W, y, 10, 15, "amxqa-bench " + s.cpu + " (" + s.backend + ")", " font-weight=\"bold\"") + body +
         "</svg>\n";
}

bool write_report_files(const std::string& dir, const Json& gbench_doc, const Report& r,
                        std::vector<std::string>* written, std::string* error) {
  // mkdir -p, one component at a time.
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      const std::string part = dir.substr(0, i);
      if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
        *error = "cannot create " + part + ": " + std::strerror(errno);
        return false;
      }
    }
  }
  const std::string base = dir + "/" + r.cpu.cpu_id;
  const std::pair<std::string, std::string> files[] = {
      {base + ".gbench.json", gbench_doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n"},
      {base + ".json", render_json(r)},
      {base + ".md", render_markdown(r)},
      {base + ".svg", render_svg(r)},
  };
  for (const auto& [path, text] : files) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) {
      *error = "cannot write " + path;
      return false;
    }
    written->push_back(path);
  }
  return true;
}

int report_main(int argc, char** argv) {
  static const char* kUsage = "usage: amxqa-bench report FILE.gbench.json [--out-dir DIR]\n";
  std::string in, out_dir, error;
  command_line::App app("amxqa-bench report");
  app.add_option("file", in)->required();
  app.add_option("--out-dir", out_dir);
  if (const int rc = app.parse_or_usage(argc, argv, 0, kUsage); rc >= 0) return rc;
  if (out_dir.empty()) {
    const size_t slash = in.rfind('/');
    out_dir = slash == std::string::npos ? "." : in.substr(0, slash);
  }
  try {
    const Json doc = read_json_file(in);
    const Report r = read_report(doc);
    std::vector<std::string> written;
    if (!write_report_files(out_dir, doc, r, &written, &error)) {
      std::fprintf(stderr, "amxqa-bench report: %s\n", error.c_str());
      return 1;
    }
    for (const std::string& path : written) std::printf("wrote %s\n", path.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "amxqa-bench report: %s: %s\n", in.c_str(), e.what());
    return 2;
  }
  return 0;
}

}  // namespace amxqa::bench
