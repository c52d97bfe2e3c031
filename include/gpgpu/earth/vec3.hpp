// gpgpu/earth/vec3.hpp — the float64 3-vector the earth module computes its geometry with.
//
//   gpgpu::earth::Vec3 a{0, 0, 1}, b{1, 0, 0};
//   double angle = gpgpu::earth::arc_length(a, b);     // pi/2: the great-circle distance
//   gpgpu::earth::Vec3 m = gpgpu::earth::normalized(a + b);
//
// Points on the unit sphere are Vec3s of length 1; tangent vectors at a point p are Vec3s
// orthogonal to p. Everything is inline and constexpr where it can be.
#pragma once

#include <cmath>
#include <utility>

namespace gpgpu::earth {

// A float64 3-vector: a point on the unit sphere or a tangent vector (the manual above).
struct Vec3 {
  double x = 0, y = 0, z = 0;  // the components

  // @{
  // Component-wise arithmetic in place.
  constexpr Vec3& operator+=(const Vec3& o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  constexpr Vec3& operator-=(const Vec3& o) {
    x -= o.x;
    y -= o.y;
    z -= o.z;
    return *this;
  }
  constexpr Vec3& operator*=(double s) {
    x *= s;
    y *= s;
    z *= s;
    return *this;
  }
  // @}
};

// @{
// Vector arithmetic: sums, differences, negation, scaling.
constexpr Vec3 operator+(Vec3 a, const Vec3& b) {
  return a += b;
}
constexpr Vec3 operator-(Vec3 a, const Vec3& b) {
  return a -= b;
}
constexpr Vec3 operator-(const Vec3& a) {
  return {-a.x, -a.y, -a.z};
}
constexpr Vec3 operator*(Vec3 a, double s) {
  return a *= s;
}
constexpr Vec3 operator*(double s, Vec3 a) {
  return a *= s;
}
constexpr Vec3 operator/(Vec3 a, double s) {
  return a *= 1.0 / s;
}
// @}
// The dot product.
constexpr double dot(const Vec3& a, const Vec3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
// The cross product.
constexpr Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
// The Euclidean length.
inline double norm(const Vec3& a) {
  return std::sqrt(dot(a, a));
}
// `a` scaled to length 1.
inline Vec3 normalized(const Vec3& a) {
  return a / norm(a);
}
// The determinant [a b c] = a . (b x c).
constexpr double triple(const Vec3& a, const Vec3& b, const Vec3& c) {
  return dot(a, cross(b, c));
}

// Great-circle distance between two unit vectors, accurate for tiny and for large angles
// (atan2 of |a x b| and a . b, not acos).
inline double arc_length(const Vec3& a, const Vec3& b) {
  return std::atan2(norm(cross(a, b)), dot(a, b));
}

// The component of v tangent to the sphere at the unit vector p.
constexpr Vec3 tangent_part(const Vec3& v, const Vec3& p) {
  return v - p * dot(v, p);
}

// Signed area of the spherical triangle (a, b, c) on the unit sphere: positive when the
// corners run counter-clockwise seen from outside (Van Oosterom and Strackee's formula).
inline double spherical_triangle_area(const Vec3& a, const Vec3& b, const Vec3& c) {
  return 2.0 * std::atan2(triple(a, b, c), 1.0 + dot(a, b) + dot(b, c) + dot(c, a));
}

// @{
// Latitude and longitude (radians) of a unit vector, and back.
inline double latitude(const Vec3& p) {
  return std::asin(std::fmax(-1.0, std::fmin(1.0, p.z)));
}
inline double longitude(const Vec3& p) {
  return std::atan2(p.y, p.x);
}
inline Vec3 from_lat_lon(double lat, double lon) {
  return {std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon), std::sin(lat)};
}
// @}
// @{
// Unit vectors pointing east and north at (lat, lon).
inline Vec3 east_at(double lon) {
  return {-std::sin(lon), std::cos(lon), 0.0};
}
inline Vec3 north_at(double lat, double lon) {
  return {-std::sin(lat) * std::cos(lon), -std::sin(lat) * std::sin(lon), std::cos(lat)};
}
// The eastward and northward components of a velocity tangent at the unit vector p. At the
// poles, where east is undefined, east is the direction of longitude 90 degrees (as
// longitude(p) = atan2(0, 0) = 0 implies).
inline std::pair<double, double> east_north(const Vec3& p, const Vec3& velocity) {
  const double lat = latitude(p), lon = longitude(p);
  return {dot(velocity, east_at(lon)), dot(velocity, north_at(lat, lon))};
}
// @}

}  // namespace gpgpu::earth
