// Plain binary encoding of values: what the disk cache stores (launch layouts)
// and what a status carries (its diagnostics). Little-endian fixed-width
// integers and length-prefixed strings; a Reader never reads past its input and
// reports a short or malformed input as failure instead.
#ifndef SCJIT_LOWERING_BASE_SERIALIZE_H_
#define SCJIT_LOWERING_BASE_SERIALIZE_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace scjit {

class Writer {
 public:
  template <typename T>
    requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void Put(T v) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    out_.append(bytes, sizeof(T));
  }
  void Put(std::string_view s) {
    Put<uint64_t>(s.size());
    out_.append(s);
  }
  void Put(const std::string& s) { Put(std::string_view(s)); }
  void Put(const char* s) { Put(std::string_view(s)); }
  template <typename T>
  void Put(const std::vector<T>& v) {
    Put<uint64_t>(v.size());
    for (const T& x : v) Put(x);
  }

  const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  // Each Get returns false (and leaves the reader failed) on a short input.
  template <typename T>
    requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  bool Get(T* v) {
    if (!Need(sizeof(T))) return false;
    std::memcpy(v, in_.data(), sizeof(T));
    in_.remove_prefix(sizeof(T));
    return true;
  }
  bool Get(std::string* s) {
    uint64_t n = 0;
    if (!Get(&n) || !Need(n)) return false;
    s->assign(in_.data(), n);
    in_.remove_prefix(n);
    return true;
  }
  template <typename T>
  bool Get(std::vector<T>* v) {
    uint64_t n = 0;
    // Every element takes at least one byte: a count beyond the input is corrupt.
    if (!Get(&n) || !Need(n)) return false;
    v->clear();
    v->resize(n);
    for (T& x : *v) {
      if (!Get(&x)) return false;
    }
    return true;
  }

  bool ok() const { return ok_; }
  bool done() const { return ok_ && in_.empty(); }

 private:
  bool Need(uint64_t n) {
    if (ok_ && n <= in_.size()) return true;
    ok_ = false;
    return false;
  }
  std::string_view in_;
  bool ok_ = true;
};

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_SERIALIZE_H_
