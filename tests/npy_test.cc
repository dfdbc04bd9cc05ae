// Tests for runtime/npy.h: the .npy reader, writer and parameter check.
#include "runtime/npy.h"

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/base/diagnostic.h"
#include "lowering/base/strings.h"
#include "lowering/ir/types.h"

namespace scjit {
namespace {

const ElementType kAllTypes[] = {
#define SCJIT_DTYPE(Enum, ...) ElementType::Enum,
#include "scjit/dtype.def"
};

std::string Magic(int major) { return std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0'; }

// A .npy file with header text `header` taken verbatim (no padding added),
// in format `major`.0, followed by `data`.
std::string RawNpy(std::string_view header, std::string_view data = "", int major = 1) {
  std::string out = Magic(major);
  size_t n = header.size();
  out += static_cast<char>(n & 0xFF);
  out += static_cast<char>((n >> 8) & 0xFF);
  if (major != 1) {
    out += static_cast<char>((n >> 16) & 0xFF);
    out += static_cast<char>((n >> 24) & 0xFF);
  }
  out += header;
  out += data;
  return out;
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

// The full rendered error for parsing `bytes` as 'in.npy'.
std::string ParseError(std::string_view bytes) {
  absl::StatusOr<NpyArray> r = ParseNpy(bytes, "in.npy");
  if (r.ok()) return "OK";
  return Message(r.status());
}

std::string FormatText(std::string_view detail) {
  return "error[IO-NPY-FORMAT]: 'in.npy' is not a valid .npy file: " + std::string(detail) +
         "\nhelp: save the array with numpy.save";
}

NpyArray MakeArray(ElementType t, Shape shape) {
  NpyArray a;
  a.dtype = t;
  a.shape = std::move(shape);
  a.data.resize(static_cast<size_t>(a.NumBytes()));
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = static_cast<uint8_t>(i * 37 + 11);
  return a;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / name).string();
}

// ----------------------------------------------------------------------------
// Writing: the exact bytes np.save (numpy >= 1.24) writes.

TEST(NpyWriteTest, Int32TwoByThreeExactBytes) {
  NpyArray a;
  a.dtype = ElementType::kI32;
  a.shape = {2, 3};
  for (int v = 0; v < 6; ++v) {
    for (int b = 0; b < 4; ++b) a.data.push_back(b == 0 ? static_cast<uint8_t>(v) : 0);
  }
  // 10 bytes of preamble + 118 of header = 128. The dict is 59 characters,
  // then 20 spaces of growth padding (21 - len("2")), then 38 spaces and '\n'.
  std::string want = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                     "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }" +
                     std::string(20, ' ') + std::string(38, ' ') + "\n" +
                     std::string("\0\0\0\0\1\0\0\0\2\0\0\0\3\0\0\0\4\0\0\0\5\0\0\0", 24);
  EXPECT_EQ(SerializeNpy(a), want);
  EXPECT_EQ(SerializeNpy(a).size(), 128u + 24u);
}

TEST(NpyWriteTest, ScalarHasNoGrowthPadding) {
  NpyArray a;
  a.dtype = ElementType::kF32;
  a.data = {0, 0, 0x80, 0x3F};
  std::string want = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (), }" +
                     std::string(62, ' ') + "\n" + std::string("\0\0\x80\x3F", 4);
  EXPECT_EQ(SerializeNpy(a), want);
}

TEST(NpyWriteTest, DescrsAndOneDimShape) {
  struct Case {
    ElementType type;
    std::string descr;
  };
  for (const Case& c : {Case{ElementType::kI1, "|b1"}, Case{ElementType::kI8, "|i1"},
                        Case{ElementType::kU8, "|u1"}, Case{ElementType::kI16, "<i2"},
                        Case{ElementType::kU16, "<u2"}, Case{ElementType::kU32, "<u4"},
                        Case{ElementType::kBF16, "<V2"}, Case{ElementType::kF16, "<f2"},
                        Case{ElementType::kI64, "<i8"}, Case{ElementType::kU64, "<u8"},
                        Case{ElementType::kF64, "<f8"}, Case{ElementType::kI4, "|V1"},
                        Case{ElementType::kU4, "|V1"}}) {
    NpyArray a;
    a.dtype = c.type;
    a.shape = {5};
    std::string want = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + "{'descr': '" + c.descr +
                       "', 'fortran_order': False, 'shape': (5,), }" + std::string(20, ' ') +
                       std::string(40, ' ') + "\n";
    EXPECT_EQ(SerializeNpy(a), want) << c.descr;
  }
}

TEST(NpyWriteTest, GrowthPaddingCanAddABlock) {
  // Without numpy's growth padding this header would fit in 128 bytes; with
  // it (21 - len("12") = 19 spaces) it takes 192.
  NpyArray a;
  a.dtype = ElementType::kI32;
  a.shape = Shape(12, 12);
  std::string dict =
      "{'descr': '<i4', 'fortran_order': False, 'shape': "
      "(12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12), }";
  ASSERT_EQ(dict.size(), 101u);
  std::string want = std::string("\x93NUMPY\x01\x00\xB6\x00", 10) + dict +
                     std::string(19, ' ') + std::string(61, ' ') + "\n";
  EXPECT_EQ(SerializeNpy(a), want);
  EXPECT_EQ(SerializeNpy(a).size(), 192u);
}

TEST(NpyWriteTest, AlreadyAlignedGetsAFullBlockOfPadding) {
  // 10 + 181 + 1 = 192 is a multiple of 64: numpy still pads 64 spaces.
  NpyArray a;
  a.dtype = ElementType::kI32;
  a.shape = Shape(36, 1);
  std::string tuple = "(";
  for (int i = 0; i < 36; ++i) tuple += i == 0 ? "1" : ", 1";
  tuple += ")";
  std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': " + tuple + ", }";
  ASSERT_EQ(dict.size() + 20, 181u);
  std::string want = std::string("\x93NUMPY\x01\x00\xF6\x00", 10) + dict + std::string(20, ' ') +
                     std::string(64, ' ') + "\n";
  std::string got = SerializeNpy(a);
  EXPECT_EQ(got, want);
  EXPECT_EQ(got.size(), 256u);
}

TEST(NpyWriteTest, LongFirstDimensionShrinksGrowthPadding) {
  NpyArray a;
  a.dtype = ElementType::kI32;
  a.shape = {1234567890123, 2};
  std::string got = SerializeNpy(a);
  std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (1234567890123, 2), }";
  // 21 - 13 digits = 8 spaces of growth padding; 10 + 79 + 1 -> 128.
  std::string want = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict + std::string(8, ' ') +
                     std::string(38, ' ') + "\n";
  EXPECT_EQ(got, want);
}

TEST(NpyWriteTest, HugeHeaderUsesVersion2) {
  NpyArray a;
  a.dtype = ElementType::kU8;
  a.shape = Shape(22000, 1);
  std::string got = SerializeNpy(a);
  ASSERT_GT(got.size(), 65536u);
  EXPECT_EQ(got.substr(0, 8), Magic(2));
  uint32_t len = static_cast<uint8_t>(got[8]) | static_cast<uint8_t>(got[9]) << 8 |
                 static_cast<uint8_t>(got[10]) << 16 | static_cast<uint32_t>(static_cast<uint8_t>(got[11])) << 24;
  EXPECT_EQ(12 + len, got.size());
  EXPECT_EQ(got.size() % 64, 0u);
  EXPECT_EQ(got.back(), '\n');
}

TEST(NpyWriteTest, DataStartsAt64ByteBoundaryForAllRanks) {
  for (int rank = 0; rank <= 40; ++rank) {
    NpyArray a = MakeArray(ElementType::kF16, Shape(rank, 1));
    std::string bytes = SerializeNpy(a);
    size_t header_end = bytes.size() - a.data.size();
    EXPECT_EQ(header_end % 64, 0u) << rank;
    EXPECT_EQ(bytes[header_end - 1], '\n');
  }
}

// ----------------------------------------------------------------------------
// Round trips.

TEST(NpyRoundTripTest, EveryDtypeInMemory) {
  for (ElementType t : kAllTypes) {
    for (const Shape& shape : {Shape{}, Shape{7}, Shape{3, 5}, Shape{2, 0, 4}, Shape{2, 3, 4}}) {
      NpyArray a = MakeArray(t, shape);
      // The 8-bit floats are raw bytes in the file: the reader is told the type.
      absl::StatusOr<NpyArray> b = ParseNpy(SerializeNpy(a), "x.npy", t);
      ASSERT_TRUE(b.ok()) << b.status();
      EXPECT_EQ(b->dtype, t);
      EXPECT_EQ(b->shape, shape);
      EXPECT_EQ(b->data, a.data);
    }
  }
}

TEST(NpyRoundTripTest, EveryDtypeThroughFiles) {
  for (ElementType t : kAllTypes) {
    NpyArray a = MakeArray(t, {4, 3});
    std::string path = TempPath(std::string("rt_") + std::string(IrName(t)) + ".npy");
    ASSERT_TRUE(WriteNpy(path, a).ok());
    absl::StatusOr<NpyArray> b = ReadNpyArray(path, t);
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(b->dtype, t);
    EXPECT_EQ(b->shape, a.shape);
    EXPECT_EQ(b->data, a.data);
    std::remove(path.c_str());
  }
}

// numpy saves float8_e5m2 as '<f1' (which numpy itself cannot load) and the other
// 8-bit floats as raw bytes '<V1': those read only as the type the reader is told.
TEST(NpyDescrTest, EightBitFloatsAsNumpySavesThem) {
  auto parse = [](std::string_view descr, std::optional<ElementType> raw_as) {
    return ParseNpy(RawNpy(Cat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (1,)}"), "x"), "f8.npy",
                    raw_as);
  };
  absl::StatusOr<NpyArray> e5m2 = parse("<f1", std::nullopt);
  ASSERT_TRUE(e5m2.ok()) << e5m2.status();
  EXPECT_EQ(e5m2->dtype, ElementType::kF8E5M2);
  absl::StatusOr<NpyArray> fn = parse("<V1", ElementType::kF8E4M3FN);
  ASSERT_TRUE(fn.ok()) << fn.status();
  EXPECT_EQ(fn->dtype, ElementType::kF8E4M3FN);
  EXPECT_EQ(parse("<V1", std::nullopt).status().message(), "error[IO-NPY-DTYPE]: 'f8.npy' has unsupported dtype '<V1'");
  EXPECT_FALSE(parse("<V1", ElementType::kU8).ok());
  // int4 and uint4 too: numpy holds ml_dtypes' int4/uint4 one a byte and saves raw bytes.
  for (ElementType t : {ElementType::kI4, ElementType::kU4}) {
    absl::StatusOr<NpyArray> a = parse("<V1", t);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->dtype, t);
    EXPECT_EQ(a->data, std::vector<uint8_t>{'x'});
  }
}

TEST(NpyRoundTripTest, LargeFileThroughFiles) {
  NpyArray a = MakeArray(ElementType::kF32, {1 << 20});  // 4 MiB
  std::string path = TempPath("large.npy");
  ASSERT_TRUE(WriteNpy(path, a).ok());
  absl::StatusOr<NpyArray> b = ReadNpyArray(path);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->data, a.data);
  std::remove(path.c_str());
}

// ----------------------------------------------------------------------------
// Reading: versions and header spellings.

TEST(NpyReadTest, Versions) {
  std::string data("\1\0\2\0\3\0", 6);
  for (int major : {1, 2, 3}) {
    absl::StatusOr<NpyArray> r = ParseNpy(
        RawNpy("{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }\n", data, major), "v");
    ASSERT_TRUE(r.ok()) << major << ": " << r.status();
    EXPECT_EQ(r->dtype, ElementType::kI16);
    EXPECT_EQ(r->shape, Shape{3});
    EXPECT_EQ(r->data, std::vector<uint8_t>({1, 0, 2, 0, 3, 0}));
  }
}

TEST(NpyReadTest, HeaderSpellings) {
  const char* headers[] = {
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
      "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (2, 3)}",
      "{'shape': (2, 3), 'descr': '<i4', 'fortran_order': False}",
      "{'fortran_order':False,'shape':(2,3),'descr':'<i4'}",
      "  {\n  'descr' : '<i4' ,\n\t'fortran_order' : False ,\n  'shape' : ( 2 , 3 , ) ,\n}  \n",
      "{'descr': '\\x3ci4', 'fortran_order': False, 'shape': (2, 3), }",
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }",
      "{'descr': '<i4', 'fortran_order': False, 'shape': (0_2, 3), }",
  };
  std::string data(24, '\x5A');
  for (const char* h : headers) {
    absl::StatusOr<NpyArray> r = ParseNpy(RawNpy(h, data), "h");
    ASSERT_TRUE(r.ok()) << h << ": " << r.status();
    EXPECT_EQ(r->dtype, ElementType::kI32) << h;
    EXPECT_EQ(r->shape, (Shape{2, 3})) << h;
  }
}

TEST(NpyReadTest, ShapesOfEveryRank) {
  EXPECT_EQ(ParseNpy(RawNpy("{'descr': '|u1', 'fortran_order': False, 'shape': ()}", "x"), "s")
                ->shape,
            Shape{});
  EXPECT_EQ(ParseNpy(RawNpy("{'descr': '|u1', 'fortran_order': False, 'shape': (5,)}", "xxxxx"), "s")
                ->shape,
            Shape{5});
  EXPECT_EQ(ParseNpy(RawNpy("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 7)}"), "s")
                ->shape,
            (Shape{0, 7}));
  EXPECT_EQ(ParseNpy(RawNpy("{'descr': '|u1', 'fortran_order': False, 'shape': "
                            "(0, 99999999999999, 99999999999999)}"),
                     "s")
                ->shape,
            (Shape{0, 99999999999999, 99999999999999}));
}

// An empty dimension after huge ones (npy_fuzzer's find: NumElements multiplied
// the huge ones first and overflowed).
TEST(NpyReadTest, AnEmptyDimensionEmptiesTheArray) {
  absl::StatusOr<NpyArray> a =
      ParseNpy(RawNpy("{'descr': '=i4', 'fortran_order': False, 'shape': (4294967296,10000000000,0), }"), "s");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->NumElements(), 0);
  EXPECT_EQ(a->NumBytes(), 0);
}

TEST(NpyReadTest, Descrs) {
  struct Case {
    const char* descr;
    ElementType type;
    int bytes;
  };
  for (const Case& c : {
           Case{"|b1", ElementType::kI1, 1},     Case{"<b1", ElementType::kI1, 1},
           Case{"|i1", ElementType::kI8, 1},     Case{">i1", ElementType::kI8, 1},
           Case{"<i1", ElementType::kI8, 1},     Case{"=i1", ElementType::kI8, 1},
           Case{"|u1", ElementType::kU8, 1},     Case{">u1", ElementType::kU8, 1},
           Case{"<i2", ElementType::kI16, 2},    Case{"<u2", ElementType::kU16, 2},
           Case{"<i4", ElementType::kI32, 4},    Case{"=i4", ElementType::kI32, 4},
           Case{"i4", ElementType::kI32, 4},     Case{"<u4", ElementType::kU32, 4},
           Case{"<i8", ElementType::kI64, 8},    Case{"<u8", ElementType::kU64, 8},
           Case{"<f2", ElementType::kF16, 2},    Case{"<f4", ElementType::kF32, 4},
           Case{"<f8", ElementType::kF64, 8},    Case{"<V2", ElementType::kBF16, 2},
           Case{"|V2", ElementType::kBF16, 2},   Case{"=V2", ElementType::kBF16, 2},
           Case{"bfloat16", ElementType::kBF16, 2},
       }) {
    std::string header =
        std::string("{'descr': '") + c.descr + "', 'fortran_order': False, 'shape': (3,), }";
    absl::StatusOr<NpyArray> r = ParseNpy(RawNpy(header, std::string(3 * c.bytes, '\1')), "d");
    ASSERT_TRUE(r.ok()) << c.descr << ": " << r.status();
    EXPECT_EQ(r->dtype, c.type) << c.descr;
  }
}

TEST(NpyReadTest, FortranOrderWithCLayoutIsAccepted) {
  for (const char* shape : {"()", "(5,)", "(1, 5, 1)", "(0, 3)", "(4, 1)"}) {
    std::string header =
        std::string("{'descr': '|u1', 'fortran_order': True, 'shape': ") + shape + ", }";
    int64_t n = std::string(shape) == "()" ? 1 : std::string(shape) == "(0, 3)" ? 0 : std::string(shape) == "(4, 1)" ? 4 : 5;
    absl::StatusOr<NpyArray> r = ParseNpy(RawNpy(header, std::string(n, 'x')), "f");
    EXPECT_TRUE(r.ok()) << shape << ": " << r.status();
  }
}

// ----------------------------------------------------------------------------
// Reading: every error, with its full text.

TEST(NpyErrorTest, Preamble) {
  EXPECT_EQ(ParseError(""), FormatText("the file is empty"));
  EXPECT_EQ(ParseError(std::string("PK\x03\x04\x14\x00\x00\x00", 8)),
            FormatText("bad magic: the file starts with 'PK\\x03\\x04\\x14\\x00', not "
                       "'\\x93NUMPY'"));
  EXPECT_EQ(ParseError("NUMPY"),
            FormatText("bad magic: the file starts with 'NUMPY', not '\\x93NUMPY'"));
  EXPECT_EQ(ParseError(std::string("\x93NUM", 4)),
            FormatText("the file ends after 4 bytes, inside the magic string and version"));
  EXPECT_EQ(ParseError(std::string("\x93NUMPY\x04\x00\x10\x00", 10)),
            FormatText("unsupported format version 4.0 (supported: 1.0, 2.0, 3.0)"));
  EXPECT_EQ(ParseError(std::string("\x93NUMPY\x01\x01\x10\x00", 10)),
            FormatText("unsupported format version 1.1 (supported: 1.0, 2.0, 3.0)"));
  EXPECT_EQ(ParseError(std::string("\x93NUMPY\x01\x00\x10", 9)),
            FormatText("the file ends after 9 bytes, inside the header length"));
  EXPECT_EQ(ParseError(std::string("\x93NUMPY\x02\x00\x10\x00\x00", 11)),
            FormatText("the file ends after 11 bytes, inside the header length"));
  EXPECT_EQ(ParseError(std::string("\x93NUMPY\x01\x00\x64\x00{'des", 15)),
            FormatText("the file ends inside the header (the header length is 100 bytes, but "
                       "only 5 follow)"));
}

TEST(NpyErrorTest, HugeHeaderLength) {
  EXPECT_EQ(ParseError(std::string("\x93NUMPY\x02\x00\xFF\xFF\xFF\xFF", 12)),
            FormatText("header length 4294967295 exceeds the limit of 1048576 bytes"));
  EXPECT_EQ(ParseError(std::string("\x93NUMPY\x03\x00\x01\x00\x10\x00", 12) + "{}"),
            FormatText("header length 1048577 exceeds the limit of 1048576 bytes"));
  EXPECT_EQ(ParseError(std::string("\x93NUMPY\x03\x00\x00\x00\x10\x00", 12) + "{}"),
            FormatText("the file ends inside the header (the header length is 1048576 bytes, "
                       "but only 2 follow)"));
}

TEST(NpyErrorTest, MalformedHeaders) {
  struct Case {
    std::string header;
    std::string detail;
  };
  const Case cases[] = {
      {"", "the header is not a dict: it starts with the end of the header"},
      {"['descr']", "the header is not a dict: it starts with '['descr']'"},
      {"{'descr': '<i4', 'fortran_order': False}", "header is missing 'shape'"},
      {"{'shape': (), 'fortran_order': False}", "header is missing 'descr'"},
      {"{'shape': (), 'descr': '<i4'}", "header is missing 'fortran_order'"},
      {"{}", "header is missing 'descr'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (3, x), }", "malformed shape '(3, x)'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (5), }",
       "malformed shape '(5)': not a tuple; a 1-d shape is written (5,)"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': [5], }",
       "malformed shape '[5]': not a tuple"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': 5, }", "malformed shape '5': not a tuple"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (-1, 3), }",
       "malformed shape '(-1, 3)': negative dimension"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1.5,), }", "malformed shape '(1.5,)'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (,), }", "malformed shape '(,)'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1,,), }", "malformed shape '(1,,)'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1 2), }", "malformed shape '(1 2)'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (3", "malformed shape '(3'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': ((3,),), }",
       "malformed shape '((3,),)'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
       "malformed shape '(99999999999999999999,)': a dimension of 2^63 or more"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (9223372036854775807, 2), }",
       "malformed shape '(9223372036854775807, 2)': 2^63 or more elements"},
      {"{'descr': '<i4', 'fortran_order': 0, 'shape': (3,), }",
       "'fortran_order' is not True or False: '0'"},
      {"{'descr': '<i4', 'fortran_order': 'False', 'shape': (3,), }",
       "'fortran_order' is not True or False: ''False''"},
      {"{'descr': <i4, 'fortran_order': False, 'shape': (3,), }", "'descr' is not a string: '<i4'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (3,), 'extra': 1}",
       "unexpected key 'extra' in the header (the keys are 'descr', 'fortran_order' and 'shape')"},
      {"{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (3,)}",
       "duplicate key 'descr' in the header"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (3,), } x",
       "unexpected text after the header dict: 'x'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (3,)}}",
       "unexpected text after the header dict: '}'"},
      {"{'descr': '<i4' 'fortran_order': False, 'shape': (3,)}",
       "expected ',' or '}' after the value of 'descr', found ''fortran_order': Fal'"},
      {"{'descr' '<i4', 'fortran_order': False, 'shape': (3,)}",
       "expected ':' after the key 'descr', found ''<i4', 'fortran_orde'"},
      {"{descr: '<i4'}", "expected a quoted key or '}' in the header dict, found 'descr: '<i4'}'"},
      {"{'descr: '<i4'}", "expected ':' after the key 'descr: ', found '<i4'}'"},
      {"{'descr': '<i4", "unterminated string starting at byte 10 of the header"},
      {"{'descr': '<i4\n', 'fortran_order': False, 'shape': (3,)}",
       "unterminated string starting at byte 10 of the header"},
      {"{'descr': '\\x4', 'fortran_order': False, 'shape': (3,)}",
       "bad \\x escape in the string at byte 10 of the header"},
      {"{'descr': [('a', '<i4'), 'fortran_order': False, 'shape': (3,)}",
       "unbalanced brackets or quotes in '[('a', '<i4'), 'fortran_order': False, 'shape': (3,)}'"},
      {std::string("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }\0", 58),
       "unexpected text after the header dict: '\\x00'"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ParseError(RawNpy(c.header, std::string(12, '\0'))), FormatText(c.detail))
        << c.header;
  }
}

TEST(NpyErrorTest, RankLimit) {
  std::string tuple = "(";
  for (int i = 0; i < 65; ++i) tuple += "1, ";
  tuple += ")";
  std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': " + tuple + "}";
  EXPECT_EQ(ParseError(RawNpy(header, "x")),
            FormatText("malformed shape '" + tuple.substr(0, 80) + "...': more than 64 dimensions"));
}

TEST(NpyErrorTest, LongSuffixOnlyBeforeVersion3) {
  std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (2L,)}";
  EXPECT_EQ(ParseError(RawNpy(header, "xx", 2)), "OK");
  EXPECT_EQ(ParseError(RawNpy(header, "xx", 3)), FormatText("malformed shape '(2L,)'"));
}

TEST(NpyErrorTest, ByteCountOverflow) {
  // 2^62 elements is a valid count, but 2^64 bytes of int32 is not.
  EXPECT_EQ(ParseError(RawNpy(
                "{'descr': '<i4', 'fortran_order': False, 'shape': (4611686018427387904,), }")),
            FormatText("shape (4611686018427387904,) of int32 holds 2^63 or more bytes"));
}

TEST(NpyErrorTest, FortranOrder) {
  std::string want =
      "error[IO-NPY-ORDER]: 'in.npy' holds a Fortran-order array; only C-order arrays are "
      "supported\nhelp: save numpy.ascontiguousarray(a) instead";
  EXPECT_EQ(ParseError(RawNpy("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
                              std::string(24, '\0'))),
            want);
  // The order is checked before the dtype.
  EXPECT_EQ(ParseError(RawNpy("{'descr': '<c8', 'fortran_order': True, 'shape': (2, 3), }")),
            want);
}

TEST(NpyErrorTest, BigEndian) {
  for (const char* descr : {">i4", ">f4", ">i2", ">u2", ">f2", ">V2", ">i8", ">f8"}) {
    std::string header =
        std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,), }";
    EXPECT_EQ(ParseError(RawNpy(header, std::string(16, '\0'))),
              std::string("error[IO-NPY-ENDIAN]: 'in.npy' has big-endian dtype '") + descr +
                  "'; only little-endian arrays are supported\nhelp: save "
                  "a.astype(a.dtype.newbyteorder('<')) instead");
  }
}

TEST(NpyErrorTest, UnsupportedDtype) {
  for (const char* descr : {"<c8", "<c16", "|O", "O", "<M8", "<m8[ns]", "<U3", "|S5", "<V4",
                            "|V1", "<f16", "<i3", "int32", "", "<", "<b2", "|b", "float16"}) {
    std::string header =
        std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,), }";
    EXPECT_EQ(ParseError(RawNpy(header, std::string(16, '\0'))),
              std::string("error[IO-NPY-DTYPE]: 'in.npy' has unsupported dtype '") + descr + "'");
  }
  EXPECT_EQ(ParseError(RawNpy(
                "{'descr': [('a', '<i4'), ('b', '<f4')], 'fortran_order': False, 'shape': (2,), }")),
            "error[IO-NPY-DTYPE]: 'in.npy' has unsupported dtype '[('a', '<i4'), ('b', '<f4')]'");
}

TEST(NpyErrorTest, DataSize) {
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(ParseError(RawNpy(header, std::string(20, '\0'))),
            "error[IO-NPY-DATA]: 'in.npy' holds 20 bytes of array data, but its header "
            "describes 24 bytes (shape (2, 3) of int32)");
  EXPECT_EQ(ParseError(RawNpy(header, std::string(25, '\0'))),
            "error[IO-NPY-DATA]: 'in.npy' holds 25 bytes of array data, but its header "
            "describes 24 bytes (shape (2, 3) of int32)");
  EXPECT_EQ(ParseError(RawNpy(
                "{'descr': '<f2', 'fortran_order': False, 'shape': (1000000000000, 1000), }",
                "abc")),
            "error[IO-NPY-DATA]: 'in.npy' holds 3 bytes of array data, but its header "
            "describes 2000000000000000 bytes (shape (1000000000000, 1000) of float16)");
}

TEST(NpyErrorTest, TruncatedAtEveryOffset) {
  NpyArray a = MakeArray(ElementType::kI16, {3});
  std::string bytes = SerializeNpy(a);
  ASSERT_EQ(bytes.size(), 134u);
  for (size_t n = 0; n < bytes.size(); ++n) {
    absl::StatusOr<NpyArray> r = ParseNpy(std::string_view(bytes).substr(0, n), "t.npy");
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(DiagnosticCode(r.status()), n < 128 ? "IO-NPY-FORMAT" : "IO-NPY-DATA") << n;
  }
  EXPECT_TRUE(ParseNpy(bytes, "t.npy").ok());
  EXPECT_EQ(DiagnosticCode(ParseNpy(bytes + "x", "t.npy").status()), "IO-NPY-DATA");
}

TEST(NpyErrorTest, FuzzNeverCrashes) {
  std::mt19937_64 rng(12345);
  std::string valid = SerializeNpy(MakeArray(ElementType::kF32, {2, 3}));
  const std::string interesting = "{}()[],:'\"\\ \n0123456789-_LTrueFalse<>|=ifubV";
  int ok = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::string input;
    switch (iter % 4) {
      case 0: {  // random bytes, sometimes with the magic
        size_t n = rng() % 200;
        for (size_t i = 0; i < n; ++i) input += static_cast<char>(rng());
        if (rng() % 2) input = Magic(static_cast<int>(1 + rng() % 3)) + input;
        break;
      }
      case 1: {  // a valid file with random bytes changed
        input = valid;
        int flips = 1 + rng() % 4;
        for (int i = 0; i < flips; ++i) input[rng() % input.size()] = static_cast<char>(rng());
        break;
      }
      case 2: {  // a valid file with header characters replaced by syntax
        input = valid;
        int flips = 1 + rng() % 6;
        for (int i = 0; i < flips; ++i) {
          input[10 + rng() % 70] = interesting[rng() % interesting.size()];
        }
        break;
      }
      case 3: {  // random header text built from syntax characters
        std::string header;
        size_t n = rng() % 120;
        for (size_t i = 0; i < n; ++i) header += interesting[rng() % interesting.size()];
        input = RawNpy(header, std::string(rng() % 30, '\0'), static_cast<int>(1 + rng() % 3));
        break;
      }
    }
    absl::StatusOr<NpyArray> r = ParseNpy(input, "fuzz.npy");
    if (r.ok()) {
      ++ok;
      EXPECT_EQ(static_cast<int64_t>(r->data.size()), r->NumBytes());
    } else {
      std::string code = DiagnosticCode(r.status());
      EXPECT_EQ(code.rfind("IO-NPY-", 0), 0u) << code;
    }
  }
  EXPECT_GT(ok, 0);
}

// ----------------------------------------------------------------------------
// Files.

TEST(NpyFileTest, OpenAndWriteErrors) {
  absl::StatusOr<NpyArray> r = ReadNpyArray("/nonexistent-dir/x.npy");
  EXPECT_EQ(Message(r.status()),
            "error[IO-OPEN]: cannot read '/nonexistent-dir/x.npy': No such file or directory");
  EXPECT_EQ(Message(ReadNpyArray(::testing::TempDir()).status()),
            "error[IO-OPEN]: cannot read '" + ::testing::TempDir() + "': it is a directory");
  // What is not a regular file is refused before it is read: /dev/zero would
  // read without end, a FIFO nobody writes would block.
  EXPECT_EQ(Message(ReadNpyArray("/dev/zero").status()),
            "error[IO-OPEN]: cannot read '/dev/zero': it is not a regular file (a character device)");
  EXPECT_EQ(Message(WriteNpy("/nonexistent-dir/x.npy", MakeArray(ElementType::kI32, {2}))),
            "error[IO-WRITE]: cannot write '/nonexistent-dir/x.npy': No such file or directory");
}

TEST(NpyFileTest, ReadErrorsMatchParseErrors) {
  std::string path = TempPath("bad.npy");
  auto write = [&](const std::string& bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  };
  std::string valid = SerializeNpy(MakeArray(ElementType::kU16, {3, 2}));
  for (size_t n : {size_t{0}, size_t{5}, size_t{9}, size_t{60}, size_t{128}, size_t{139},
                   valid.size(), valid.size() + 1, valid.size() + 100000}) {
    std::string bytes = valid.substr(0, n);
    if (n > valid.size()) bytes = valid + std::string(n - valid.size(), '\7');
    write(bytes);
    absl::StatusOr<NpyArray> from_file = ReadNpyArray(path);
    absl::StatusOr<NpyArray> from_memory = ParseNpy(bytes, path);
    EXPECT_EQ(from_file.status(), from_memory.status()) << n;
    if (from_file.ok()) {
      EXPECT_EQ(from_file->data, from_memory->data);
    }
  }
  // A header that claims about 8 TB of data: reported, not allocated.
  write(RawNpy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", "0123456789"));
  EXPECT_EQ(Message(ReadNpyArray(path).status()),
            "error[IO-NPY-DATA]: '" + path + "' holds 10 bytes of array data, but its header "
            "describes 8000000000000 bytes (shape (1000000000000,) of float64)");
  // A tiny header whose data was read together with the preamble.
  write(RawNpy("{'descr':'|u1','fortran_order':False,'shape':(2,)}", "ab"));
  absl::StatusOr<NpyArray> tiny = ReadNpyArray(path);
  ASSERT_TRUE(tiny.ok()) << tiny.status();
  EXPECT_EQ(tiny->data, std::vector<uint8_t>({'a', 'b'}));
  std::remove(path.c_str());
}

// ----------------------------------------------------------------------------
// CheckNpyMatches.

// The check against a parameter of .scir type `t`.
absl::Status CheckNpyMatches(const NpyArray& a, std::string_view path, std::string_view param, const Type& t) {
  return scjit::CheckNpyMatches(a, path, param, t.element(), t.shape(), t.ToString());
}

TEST(NpyCheckTest, Matches) {
  NpyArray a = MakeArray(ElementType::kI32, {64, 16});
  EXPECT_TRUE(CheckNpyMatches(a, "in.npy", "%x", Type::Ref(MemorySpace::kHbm, ElementType::kI32, {64, 16})).ok());
  EXPECT_TRUE(CheckNpyMatches(a, "in.npy", "%x", Type::Ref(MemorySpace::kHbm, ElementType::kI32, {kDynamic, 16})).ok());
  EXPECT_TRUE(CheckNpyMatches(a, "in.npy", "%x", Type::Vector(ElementType::kI32, {64, 16})).ok());
  NpyArray s = MakeArray(ElementType::kF32, {});
  EXPECT_TRUE(CheckNpyMatches(s, "s.npy", "%s", Type::Scalar(ElementType::kF32)).ok());
}

TEST(NpyCheckTest, ShapeMismatch) {
  NpyArray a = MakeArray(ElementType::kI32, {16, 64});
  absl::Status s =
      CheckNpyMatches(a, "in.npy", "%x", Type::Ref(MemorySpace::kHbm, ElementType::kI32, {64, 16}));
  EXPECT_EQ(DiagnosticCode(s), "IO-SHAPE");
  EXPECT_EQ(Message(s),
            "error[IO-SHAPE]: shape mismatch for %x (hbm<64x16xi32>): the kernel expects "
            "(64, 16), 'in.npy' has (16, 64)");
  NpyArray b = MakeArray(ElementType::kI32, {64});
  EXPECT_EQ(Message(CheckNpyMatches(b, "in.npy", "%x",
                                    Type::Ref(MemorySpace::kHbm, ElementType::kI32, {kDynamic, 16}))),
            "error[IO-SHAPE]: shape mismatch for %x (hbm<?x16xi32>): the kernel expects "
            "(None, 16), 'in.npy' has (64,)");
  NpyArray c = MakeArray(ElementType::kF32, {1});
  EXPECT_EQ(Message(CheckNpyMatches(c, "c.npy", "%c", Type::Scalar(ElementType::kF32))),
            "error[IO-SHAPE]: shape mismatch for %c (f32): the kernel expects (), 'c.npy' has (1,)");
}

TEST(NpyCheckTest, DtypeMismatchIsCheckedFirst) {
  NpyArray a = MakeArray(ElementType::kF32, {64, 16});
  absl::Status s =
      CheckNpyMatches(a, "in.npy", "%x", Type::Ref(MemorySpace::kHbm, ElementType::kI32, {64, 16}));
  EXPECT_EQ(DiagnosticCode(s), "IO-DTYPE");
  EXPECT_EQ(Message(s),
            "error[IO-DTYPE]: dtype mismatch for %x (hbm<64x16xi32>): the kernel expects int32, "
            "'in.npy' has float32");
  NpyArray b = MakeArray(ElementType::kI64, {3});
  EXPECT_EQ(Message(CheckNpyMatches(b, "in.npy", "%x",
                                    Type::Ref(MemorySpace::kHbm, ElementType::kBF16, {64, 16}))),
            "error[IO-DTYPE]: dtype mismatch for %x (hbm<64x16xbf16>): the kernel expects "
            "bfloat16, 'in.npy' has int64\nnote: the shape differs too: the kernel expects "
            "(64, 16), 'in.npy' has (3,)");
}

}  // namespace
}  // namespace scjit
