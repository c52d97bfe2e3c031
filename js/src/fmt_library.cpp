// fmt's compiled part, for the browser build. Debian ships fmt's headers with a library built
// for the host only; defining fmt's out-of-line functions here once (format-inl.h, without
// FMT_HEADER_ONLY) lets every other translation unit use fmt as an ordinary library instead
// of compiling all of it header-only (which tripled each file's compile time).
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
// The templates gpgpu's code calls, for char (what fmt's own library instantiates).
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view,
                                 basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);
}  // namespace detail
FMT_END_NAMESPACE
