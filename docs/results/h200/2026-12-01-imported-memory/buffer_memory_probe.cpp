// A research probe, not part of the library (COMMAND says how it was built and run):
//   buffer_memory_probe LOG2N...
// GPU time (GL timer queries, median of 9 after 3) of a GLSL copy, fill and read over 2^LOG2N
// floats in the scan's tile layout (a work group of 512 invocations moves 8192 consecutive
// floats, 4 vec4 an invocation), for three ways of providing the memory:
//   separate   two buffers made by glBufferData
//   one        two ranges of one buffer twice the size (glBindBufferRange)
//   in 1.5G    two ranges 768 MiB apart in one buffer of 1.5 GiB
//   vulkan     two Vulkan buffers of device-local memory, each its own allocation, exported as
//              opaque file descriptors and imported with GL_EXT_memory_object_fd
// It asks whether GL's large-buffer bandwidth (2.1 TB/s above 256 MiB on an H200, against
// 3.9 TB/s below) comes with the allocation GL makes, or with the size of what is touched.
// Standalone: EGL (device platform, else surfaceless) + GLES 3.1 + dlopen'd libvulkan.so.1.
#define VK_NO_PROTOTYPES
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>
#include <GLES2/gl2ext.h>
#include <dlfcn.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "buffer_memory_probe: %s\n", why.c_str());
  std::exit(1);
}

template <class F>
F gl_proc(const char* name) {
  auto f = reinterpret_cast<F>(eglGetProcAddress(name));
  if (f == nullptr) die(std::string("missing ") + name);
  return f;
}

void make_context() {
  auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(
      eglGetProcAddress("eglQueryDevicesEXT"));
  auto platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  EGLDisplay dpy = EGL_NO_DISPLAY;
  EGLDeviceEXT devices[8];
  EGLint count = 0;
  if (query_devices != nullptr && query_devices(8, devices, &count) && count > 0) {
    dpy = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[0], nullptr);
  }
  if (dpy == EGL_NO_DISPLAY) {
    dpy = platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  }
  if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, nullptr, nullptr)) die("no EGL display");
  eglBindAPI(EGL_OPENGL_ES_API);
  const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_NONE};
  EGLConfig config;
  EGLint n = 0;
  eglChooseConfig(dpy, config_attribs, &config, 1, &n);
  const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE};
  EGLContext ctx = eglCreateContext(dpy, n > 0 ? config : nullptr, EGL_NO_CONTEXT, attribs);
  if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
    die("no GLES 3.1 context");
  }
}

// ---- Vulkan memory, exported --------------------------------------------------------------

struct Vulkan {
  PFN_vkGetInstanceProcAddr gipa = nullptr;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  std::string name, why;
  template <class F>
  F ip(const char* n) { return reinterpret_cast<F>(gipa(instance, n)); }
  template <class F>
  F dp(const char* n) {
    auto gdpa = ip<PFN_vkGetDeviceProcAddr>("vkGetDeviceProcAddr");
    return reinterpret_cast<F>(gdpa(device, n));
  }
};

// The Vulkan device whose UUID is GL's, or why there is none.
bool open_vulkan(Vulkan& vk, const unsigned char* gl_uuid) {
  void* lib = dlopen("libvulkan.so.1", RTLD_NOW);
  if (lib == nullptr) return vk.why = "no libvulkan.so.1", false;
  vk.gipa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  auto create = vk.ip<PFN_vkCreateInstance>("vkCreateInstance");
  if (create(&ici, nullptr, &vk.instance) != VK_SUCCESS) return vk.why = "vkCreateInstance", false;
  auto enumerate = vk.ip<PFN_vkEnumeratePhysicalDevices>("vkEnumeratePhysicalDevices");
  auto props2 = vk.ip<PFN_vkGetPhysicalDeviceProperties2>("vkGetPhysicalDeviceProperties2");
  uint32_t count = 0;
  enumerate(vk.instance, &count, nullptr);
  std::vector<VkPhysicalDevice> all(count);
  enumerate(vk.instance, &count, all.data());
  std::string seen;
  for (auto pd : all) {
    VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 p{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
    props2(pd, &p);
    seen += std::string(" ") + p.properties.deviceName;
    if (std::memcmp(id.deviceUUID, gl_uuid, VK_UUID_SIZE) == 0) {
      vk.physical = pd;
      vk.name = p.properties.deviceName;
    }
  }
  if (vk.physical == VK_NULL_HANDLE) return vk.why = "no Vulkan device with GL's UUID:" + seen, false;
  const float priority = 1;
  VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  q.queueCount = 1;
  q.pQueuePriorities = &priority;
  const char* exts[] = {"VK_KHR_external_memory_fd"};
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &q;
  dci.enabledExtensionCount = 1;
  dci.ppEnabledExtensionNames = exts;
  auto create_device = vk.ip<PFN_vkCreateDevice>("vkCreateDevice");
  if (create_device(vk.physical, &dci, nullptr, &vk.device) != VK_SUCCESS) {
    return vk.why = "vkCreateDevice with VK_KHR_external_memory_fd", false;
  }
  return true;
}

// A GL buffer over `bytes` of Vulkan device-local memory (a dedicated allocation).
GLuint vulkan_buffer(Vulkan& vk, VkDeviceSize bytes) {
  VkExternalMemoryBufferCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &ext};
  bci.size = bytes;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
              VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer buffer;
  if (vk.dp<PFN_vkCreateBuffer>("vkCreateBuffer")(vk.device, &bci, nullptr, &buffer) != VK_SUCCESS) {
    die("vkCreateBuffer");
  }
  VkMemoryRequirements req;
  vk.dp<PFN_vkGetBufferMemoryRequirements>("vkGetBufferMemoryRequirements")(vk.device, buffer,
                                                                             &req);
  VkPhysicalDeviceMemoryProperties mp;
  vk.ip<PFN_vkGetPhysicalDeviceMemoryProperties>("vkGetPhysicalDeviceMemoryProperties")(
      vk.physical, &mp);
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; ++i) {
    if ((req.memoryTypeBits & (1u << i)) &&
        (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) {
      type = i;
    }
  }
  if (type == UINT32_MAX) die("no device-local memory type");
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.buffer = buffer;
  VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                         &dedicated};
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &export_info};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  VkDeviceMemory memory;
  if (vk.dp<PFN_vkAllocateMemory>("vkAllocateMemory")(vk.device, &mai, nullptr, &memory) !=
      VK_SUCCESS) {
    die("vkAllocateMemory");
  }
  vk.dp<PFN_vkBindBufferMemory>("vkBindBufferMemory")(vk.device, buffer, memory, 0);
  VkMemoryGetFdInfoKHR gfi{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  gfi.memory = memory;
  gfi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  if (vk.dp<PFN_vkGetMemoryFdKHR>("vkGetMemoryFdKHR")(vk.device, &gfi, &fd) != VK_SUCCESS) {
    die("vkGetMemoryFdKHR");
  }
  static const auto create_objects =
      gl_proc<PFNGLCREATEMEMORYOBJECTSEXTPROC>("glCreateMemoryObjectsEXT");
  static const auto parameter =
      gl_proc<PFNGLMEMORYOBJECTPARAMETERIVEXTPROC>("glMemoryObjectParameterivEXT");
  static const auto import_fd = gl_proc<PFNGLIMPORTMEMORYFDEXTPROC>("glImportMemoryFdEXT");
  static const auto storage = gl_proc<PFNGLBUFFERSTORAGEMEMEXTPROC>("glBufferStorageMemEXT");
  GLuint object = 0;
  create_objects(1, &object);
  const GLint yes = GL_TRUE;
  parameter(object, GL_DEDICATED_MEMORY_OBJECT_EXT, &yes);
  import_fd(object, req.size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);  // GL owns fd now
  GLuint id = 0;
  glGenBuffers(1, &id);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id);
  storage(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes), object, 0);
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) die("import: GL error " + std::to_string(e));
  return id;
}

// ---- Kernels and timing -------------------------------------------------------------------

GLuint program(const char* body) {
  const std::string src = std::string(
                              "#version 310 es\nlayout(local_size_x = 512) in;\n"
                              "layout(std430, binding = 0) buffer A { vec4 a[]; };\n"
                              "layout(std430, binding = 1) buffer B { vec4 b[]; };\n"
                              "uniform uint groups_x;\n"
                              "uint tile() { return gl_WorkGroupID.y * groups_x + "
                              "gl_WorkGroupID.x; }\n") +
                          body;
  const char* text = src.c_str();
  GLuint s = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(s, 1, &text, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    die(std::string("compile: ") + log);
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, s);
  glLinkProgram(p);
  return p;
}

// Tiles of 2048 vec4 (8192 floats): invocation i moves vec4 i, i + 512, i + 1024, i + 1536.
const char* copy_body = R"(void main() {
  uint base = tile() * 2048u + gl_LocalInvocationID.x;
  vec4 v0 = a[base], v1 = a[base + 512u], v2 = a[base + 1024u], v3 = a[base + 1536u];
  b[base] = v0; b[base + 512u] = v1; b[base + 1024u] = v2; b[base + 1536u] = v3;
})";
const char* fill_body = R"(void main() {
  uint base = tile() * 2048u + gl_LocalInvocationID.x;
  vec4 v = vec4(float(base));
  b[base] = v; b[base + 512u] = v; b[base + 1024u] = v; b[base + 1536u] = v;
})";
// Counts the vec4s of a that do not hold the fill's pattern: fill writes b, a copy takes it to
// a (wholly written by the copy kernel), and the timed copies take a back to b.
const char* check_body = R"(layout(std430, binding = 2) buffer C { uint wrong; };
void main() {
  uint base = tile() * 2048u + gl_LocalInvocationID.x;
  vec4 v = vec4(float(base));
  uint bad = uint(a[base] != v) + uint(a[base + 512u] != v) + uint(a[base + 1024u] != v) +
             uint(a[base + 1536u] != v);
  if (bad != 0u) atomicAdd(wrong, bad);
})";
const char* read_body = R"(void main() {
  uint base = tile() * 2048u + gl_LocalInvocationID.x;
  vec4 s = a[base] + a[base + 512u] + a[base + 1024u] + a[base + 1536u];
  if (s.x == -1.2345f) b[0] = s;  // never true for the data written: keeps the loads
})";

struct Dispatch {
  GLuint x, y;
};
Dispatch tiles_for(std::size_t floats) {
  const GLuint tiles = static_cast<GLuint>(floats / 8192);
  const GLuint x = std::min<GLuint>(tiles, 32768);
  return {x, tiles / x};
}

using QueryResult = void (*)(GLuint, GLenum, GLuint64*);

// Median GPU ms of 9 dispatches after 3.
double time_ms(GLuint p, Dispatch d) {
  static const auto result = gl_proc<QueryResult>("glGetQueryObjectui64vEXT");
  glUseProgram(p);
  glUniform1ui(glGetUniformLocation(p, "groups_x"), d.x);
  GLuint q = 0;
  glGenQueries(1, &q);
  std::vector<double> ms;
  for (int r = 0; r < 12; ++r) {
    glBeginQuery(GL_TIME_ELAPSED_EXT, q);
    glDispatchCompute(d.x, d.y, 1);
    glEndQuery(GL_TIME_ELAPSED_EXT);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    GLuint64 ns = 0;
    result(q, GL_QUERY_RESULT, &ns);
    if (r >= 3) ms.push_back(static_cast<double>(ns) * 1e-6);
  }
  glDeleteQueries(1, &q);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct Bound {
  GLuint buffer;
  GLintptr offset;
};

struct Programs {
  GLuint copy, fill, read, check;
};

// The number of vec4s the check kernel finds wrong in dst.
unsigned wrong_after(const Programs& p, Dispatch d) {
  static GLuint counter = 0;
  if (counter == 0) glGenBuffers(1, &counter);
  const GLuint zero = 0;
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, counter);
  glBufferData(GL_SHADER_STORAGE_BUFFER, 4, &zero, GL_DYNAMIC_READ);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, counter);
  glUseProgram(p.check);
  glUniform1ui(glGetUniformLocation(p.check, "groups_x"), d.x);
  glDispatchCompute(d.x, d.y, 1);
  glMemoryBarrier(GL_ALL_BARRIER_BITS);
  const auto* mapped = static_cast<const GLuint*>(
      glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, 4, GL_MAP_READ_BIT));
  const unsigned wrong = mapped != nullptr ? *mapped : ~0u;
  glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
  return wrong;
}

void measure(const char* way, int log2n, Bound src, Bound dst, std::size_t bytes,
             const Programs& p) {
  const GLuint copy = p.copy, fill = p.fill, read = p.read;
  const Dispatch d = tiles_for(bytes / 4);
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, src.buffer, src.offset, bytes);
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 1, dst.buffer, dst.offset, bytes);
  const double f = time_ms(fill, d);  // fills b, then copy b -> a so that a holds data
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, dst.buffer, dst.offset, bytes);
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 1, src.buffer, src.offset, bytes);
  time_ms(copy, d);
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, src.buffer, src.offset, bytes);
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 1, dst.buffer, dst.offset, bytes);
  const double c = time_ms(copy, d);
  const double r = time_ms(read, d);
  const unsigned wrong = wrong_after(p, d);
  const double b = static_cast<double>(bytes);
  std::printf("%5d  %-9s  %9.0f  %9.0f  %9.0f  %s\n", log2n, way, 2 * b / (c * 1e6),
              b / (f * 1e6), b / (r * 1e6), wrong == 0 ? "ok" : "WRONG");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  make_context();
  std::printf("%s, %s\n", reinterpret_cast<const char*>(glGetString(GL_RENDERER)),
              reinterpret_cast<const char*>(glGetString(GL_VERSION)));
  unsigned char uuid[GL_UUID_SIZE_EXT] = {};
  const bool memory_objects =
      std::strstr(reinterpret_cast<const char*>(glGetString(GL_EXTENSIONS)),
                  "GL_EXT_memory_object_fd") != nullptr;
  Vulkan vk;
  bool vulkan = false;
  if (memory_objects) {
    gl_proc<PFNGLGETUNSIGNEDBYTEI_VEXTPROC>("glGetUnsignedBytei_vEXT")(GL_DEVICE_UUID_EXT, 0,
                                                                       uuid);
    vulkan = open_vulkan(vk, uuid);
  } else {
    vk.why = "no GL_EXT_memory_object_fd";
  }
  std::printf("vulkan: %s\n", vulkan ? vk.name.c_str() : vk.why.c_str());
  std::printf("GB/s (copy counts 8 bytes a float, fill and read 4)\n");
  std::printf("log2n  way             copy       fill       read  data\n");
  const Programs p{program(copy_body), program(fill_body), program(read_body),
                   program(check_body)};
  for (int i = 1; i < argc; ++i) {
    const int log2n = std::atoi(argv[i]);
    const std::size_t bytes = (std::size_t{1} << log2n) * 4;
    GLuint two[2];
    glGenBuffers(2, two);
    for (GLuint b : two) {
      glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
      glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr,
                   GL_DYNAMIC_COPY);
    }
    measure("separate", log2n, {two[0], 0}, {two[1], 0}, bytes, p);
    glDeleteBuffers(2, two);
    if (2 * bytes < (std::size_t{1} << 31)) {
      GLuint one;
      glGenBuffers(1, &one);
      glBindBuffer(GL_SHADER_STORAGE_BUFFER, one);
      glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(2 * bytes), nullptr,
                   GL_DYNAMIC_COPY);
      measure("one", log2n, {one, 0}, {one, static_cast<GLintptr>(bytes)}, bytes, p);
      glDeleteBuffers(1, &one);
    }
    // The same bytes as two ranges far apart in one 1.5 GiB buffer: a large allocation with a
    // small part touched.
    const std::size_t big = std::size_t{3} << 29;
    if (2 * bytes <= big / 2) {
      GLuint one;
      glGenBuffers(1, &one);
      glBindBuffer(GL_SHADER_STORAGE_BUFFER, one);
      glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(big), nullptr,
                   GL_DYNAMIC_COPY);
      measure("in 1.5G", log2n, {one, 0}, {one, static_cast<GLintptr>(big / 2)}, bytes, p);
      glDeleteBuffers(1, &one);
    }
    if (vulkan) {
      const GLuint a = vulkan_buffer(vk, bytes), b = vulkan_buffer(vk, bytes);
      measure("vulkan", log2n, {a, 0}, {b, 0}, bytes, p);
      glDeleteBuffers(1, &a);
      glDeleteBuffers(1, &b);  // the Vulkan side is left to process exit: a probe
    }
    glFinish();
  }
  return 0;
}
