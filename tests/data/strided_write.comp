// Writes a ROWS x COLS matrix column by column: neighbouring invocations write addresses
// COLS apart (strided, uncoalesced) — the picture `gpgpu trace` should show.
layout(local_size_x = 64) in;
layout(std430, binding = 0) writeonly buffer Out { float dst[]; };
uniform int COLS;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  int rows = int(gpgpu_count) / COLS;
  int row = int(i) % rows;
  int col = int(i) / rows;
  dst[row * COLS + col] = float(i);
}
