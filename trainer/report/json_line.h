// json_line.h — one JSON object written field by field (the JSONL metrics log,
// eval results). Non-finite numbers become null so every line stays valid JSON.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace amxqa::train {

std::string json_escape(const std::string& s);  // with the quotes

class JsonLine {
 public:
  JsonLine& add(const std::string& key, double v);
  JsonLine& add(const std::string& key, int v) { return add(key, static_cast<int64_t>(v)); }
  JsonLine& add(const std::string& key, int64_t v);
  JsonLine& add(const std::string& key, uint64_t v);
  JsonLine& add(const std::string& key, uint32_t v) { return add(key, static_cast<uint64_t>(v)); }
  JsonLine& add(const std::string& key, const std::string& v);
  JsonLine& add(const std::string& key, const char* v) { return add(key, std::string(v)); }
  JsonLine& add(const std::string& key, bool v);
  JsonLine& add(const std::string& key, const std::vector<double>& v);
  JsonLine& add(const std::string& key, const std::vector<std::string>& v);
  JsonLine& add_raw(const std::string& key, const std::string& json);  // a nested value
  std::string str() const { return "{" + body_ + "}"; }

 private:
  void key(const std::string& k);
  std::string body_;
};

std::string json_number(double v);

}  // namespace amxqa::train
