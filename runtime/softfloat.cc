#include "runtime/softfloat.h"

#include <bit>
#include <cstdint>

#include "runtime/half.h"

namespace scjit {
namespace {

// 16-bit patterns in and out of the XMM register a _Float16 uses.
uint16_t Bits(_Float16 h) { return std::bit_cast<uint16_t>(h); }
_Float16 Half(uint16_t bits) { return std::bit_cast<_Float16>(bits); }

float ExtendHfSf(_Float16 h) { return F16ToFloat(Bits(h)); }
double ExtendHfDf(_Float16 h) { return F16ToFloat(Bits(h)); }
float ExtendBfSf(_Float16 h) { return Bf16ToFloat(Bits(h)); }
_Float16 TruncSfHf(float f) { return Half(FloatToF16(f)); }
_Float16 TruncDfHf(double d) { return Half(DoubleToF16(d)); }
_Float16 TruncSfBf(float f) { return Half(FloatToBf16(f)); }
_Float16 TruncDfBf(double d) { return Half(DoubleToBf16(d)); }

const SoftFloatSymbol kSymbols[] = {
    {"__extendhfsf2", reinterpret_cast<const void*>(&ExtendHfSf)},
    {"__extendhfdf2", reinterpret_cast<const void*>(&ExtendHfDf)},
    {"__extendbfsf2", reinterpret_cast<const void*>(&ExtendBfSf)},
    {"__truncsfhf2", reinterpret_cast<const void*>(&TruncSfHf)},
    {"__truncdfhf2", reinterpret_cast<const void*>(&TruncDfHf)},
    {"__truncsfbf2", reinterpret_cast<const void*>(&TruncSfBf)},
    {"__truncdfbf2", reinterpret_cast<const void*>(&TruncDfBf)},
};

}  // namespace

std::span<const SoftFloatSymbol> SoftFloatSymbols() { return kSymbols; }

}  // namespace scjit
