// compare.cpp — see compare.h.
#include "report/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "command_line.h"
#include "report/json_file.h"

namespace amxqa::bench {
namespace {

std::string cell(const Json* v) {
  if (!v || v->is_null()) return "null";
  if (v->is_string()) return v->get_ref<const std::string&>();
  if (v->is_number()) {
    const double d = v->get<double>();
    char buf[40];
    if (d == std::floor(d) && std::fabs(d) < 1e15)
      std::snprintf(buf, sizeof buf, "%.0f", d);  // byte counts in full
    else
      std::snprintf(buf, sizeof buf, "%.6g", d);
    return buf;
  }
  if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
  return "(object)";
}

std::string ratio(const Json* a, const Json* b) {
  if (!a || !b || !a->is_number() || !b->is_number() || a->get<double>() == 0.0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", b->get<double>() / a->get<double>());
  return buf;
}

struct Line {
  std::string key;
  const Json* a;
  const Json* b;
};

}  // namespace

int compare_main(int argc, char** argv) {
  static const char* kUsage = "usage: amxqa-bench compare A.json B.json\n";
  std::string paths[2];
  command_line::App app("amxqa-bench compare");
  app.add_option("a", paths[0])->required();
  app.add_option("b", paths[1])->required();
  if (const int rc = app.parse_or_usage(argc, argv, 0, kUsage); rc >= 0) return rc;
  Json docs[2];
  for (int i = 0; i < 2; ++i) {
    try {
      docs[i] = read_json_file(paths[i]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "amxqa-bench compare: %s: %s\n", paths[i].c_str(), e.what());
      return 2;
    }
    const Json* s = member(docs[i], "summary");
    if (!s || !s->is_object()) {
      std::fprintf(stderr, "amxqa-bench compare: %s has no \"summary\" object\n", paths[i].c_str());
      return 2;
    }
  }
  const Json& sa = *member(docs[0], "summary");
  const Json& sb = *member(docs[1], "summary");
  // Keys in A's order, then any that only B has; objects (bw_gbs) one row per member.
  std::vector<Line> lines;
  auto add = [&](const std::string& key, const Json* a, const Json* b) {
    const Json& any = a ? *a : *b;
    if (any.is_object()) {
      std::vector<std::string> members;
      for (const Json* o : {a, b})
        if (o && o->is_object())
          for (const auto& f : o->items()) {
            bool seen = false;
            for (const auto& m : members) seen |= m == f.key();
            if (!seen) members.push_back(f.key());
          }
      for (const auto& m : members)
        lines.push_back({key + "." + m, a ? member(*a, m) : nullptr,
                         b ? member(*b, m) : nullptr});
    } else {
      lines.push_back({key, a, b});
    }
  };
  for (const auto& f : sa.items()) add(f.key(), &f.value(), member(sb, f.key()));
  for (const auto& f : sb.items())
    if (!member(sa, f.key())) add(f.key(), nullptr, &f.value());

  size_t wk = 3, wa = 1, wb = 1;
  for (const Line& l : lines) {
    wk = std::max(wk, l.key.size());
    wa = std::max(wa, cell(l.a).size());
    wb = std::max(wb, cell(l.b).size());
  }
  std::printf("A: %s\nB: %s\n\n", paths[0].c_str(), paths[1].c_str());
  std::printf("%-*s  %*s  %*s  %8s\n", int(wk), "key", int(wa), "A", int(wb), "B", "B/A");
  for (const Line& l : lines)
    std::printf("%-*s  %*s  %*s  %8s\n", int(wk), l.key.c_str(), int(wa), cell(l.a).c_str(),
                int(wb), cell(l.b).c_str(), ratio(l.a, l.b).c_str());
  return 0;
}

}  // namespace amxqa::bench
