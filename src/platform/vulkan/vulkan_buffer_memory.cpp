// The EGL platform's large-buffer memory (gl/buffer_memory.hpp): device-local memory that
// Vulkan allocates on the GL context's own GPU (the Vulkan device whose UUID is GL's
// GL_DEVICE_UUID_EXT), exported as an opaque file descriptor and imported into a GL buffer
// (GL_EXT_memory_object_fd). The Vulkan loader is opened at run time, so that gpgpu neither
// links nor needs it: without one (or without a matching device) Buffers keep GL's memory.
#define VK_NO_PROTOTYPES
#include <dlfcn.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <array>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "gl/buffer_memory.hpp"
#include "gl/context_state.hpp"
#include "gl/platform.hpp"

namespace gpgpu::detail {

namespace {

// GL_EXT_memory_object(_fd)'s entry points.
struct GlImport {
  PFNGLCREATEMEMORYOBJECTSEXTPROC create_objects = nullptr;
  PFNGLDELETEMEMORYOBJECTSEXTPROC delete_objects = nullptr;
  PFNGLMEMORYOBJECTPARAMETERIVEXTPROC parameter = nullptr;
  PFNGLIMPORTMEMORYFDEXTPROC import_fd = nullptr;
  PFNGLBUFFERSTORAGEMEMEXTPROC storage = nullptr;
  PFNGLGETUNSIGNEDBYTEI_VEXTPROC get_uuid = nullptr;

  bool load() {
    create_objects = reinterpret_cast<PFNGLCREATEMEMORYOBJECTSEXTPROC>(
        platform_proc_address("glCreateMemoryObjectsEXT"));
    delete_objects = reinterpret_cast<PFNGLDELETEMEMORYOBJECTSEXTPROC>(
        platform_proc_address("glDeleteMemoryObjectsEXT"));
    parameter = reinterpret_cast<PFNGLMEMORYOBJECTPARAMETERIVEXTPROC>(
        platform_proc_address("glMemoryObjectParameterivEXT"));
    import_fd =
        reinterpret_cast<PFNGLIMPORTMEMORYFDEXTPROC>(platform_proc_address("glImportMemoryFdEXT"));
    storage = reinterpret_cast<PFNGLBUFFERSTORAGEMEMEXTPROC>(
        platform_proc_address("glBufferStorageMemEXT"));
    get_uuid = reinterpret_cast<PFNGLGETUNSIGNEDBYTEI_VEXTPROC>(
        platform_proc_address("glGetUnsignedBytei_vEXT"));
    return create_objects && delete_objects && parameter && import_fd && storage && get_uuid;
  }
};

// The Vulkan functions used, resolved from the loader.
struct Vk {
  PFN_vkGetInstanceProcAddr instance_proc = nullptr;
  PFN_vkDestroyInstance destroy_instance = nullptr;
  PFN_vkEnumeratePhysicalDevices enumerate = nullptr;
  PFN_vkGetPhysicalDeviceProperties2 properties2 = nullptr;
  PFN_vkGetPhysicalDeviceMemoryProperties memory_properties = nullptr;
  PFN_vkCreateDevice create_device = nullptr;
  PFN_vkDestroyDevice destroy_device = nullptr;
  PFN_vkCreateBuffer create_buffer = nullptr;
  PFN_vkDestroyBuffer destroy_buffer = nullptr;
  PFN_vkGetBufferMemoryRequirements requirements = nullptr;
  PFN_vkAllocateMemory allocate = nullptr;
  PFN_vkFreeMemory free = nullptr;
  PFN_vkBindBufferMemory bind = nullptr;
  PFN_vkGetMemoryFdKHR get_fd = nullptr;
};

// The loader, opened once per process and kept (drivers may leave threads running that
// unloading would pull code from under).
PFN_vkGetInstanceProcAddr open_loader(std::string& why) {
  static void* const library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    why = "no Vulkan loader (libvulkan.so.1)";
    return nullptr;
  }
  return reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library, "vkGetInstanceProcAddr"));
}

constexpr std::size_t page = std::size_t{64} << 10;

struct Allocation {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;  // of the allocation, which GL imports whole
  GLuint object = 0;      // the GL memory object
};

class VulkanBufferMemory final : public BufferMemory {
 public:
  ~VulkanBufferMemory() override {
    for (auto& [buffer, a] : live_) free_vulkan(a);
    if (device_ != VK_NULL_HANDLE) vk_.destroy_device(device_, nullptr);
    if (instance_ != VK_NULL_HANDLE) vk_.destroy_instance(instance_, nullptr);
  }

  // Opens Vulkan on the device whose UUID is GL's; false with `why` where it cannot.
  bool open(std::string& why) {
    if (!gl_.load()) return why = "the driver lacks GL_EXT_memory_object_fd's functions", false;
    vk_.instance_proc = open_loader(why);
    if (vk_.instance_proc == nullptr) return false;
    if (!make_instance(why) || !pick_device(why)) return false;
    return make_device(why);
  }

  GLuint create_buffer(std::size_t bytes, std::string& why) override {
    Allocation a;
    int fd = allocate(bytes, a, why);
    if (fd < 0) {
      free_vulkan(a);
      return 0;
    }
    const GLuint buffer = import(bytes, fd, a, why);
    if (buffer == 0) {
      free_vulkan(a);
      return 0;
    }
    live_[buffer] = a;
    return buffer;
  }

  void release(GLuint buffer) noexcept override {
    auto it = live_.find(buffer);
    if (it == live_.end()) return;
    gl_.delete_objects(1, &it->second.object);
    glGetError();
    free_vulkan(it->second);
    live_.erase(it);
  }

  bool owns(GLuint buffer) const noexcept override { return live_.count(buffer) != 0; }
  std::size_t live_buffers() const noexcept override { return live_.size(); }

 private:
  template <class F>
  F instance_fn(const char* name) const {
    return reinterpret_cast<F>(vk_.instance_proc(instance_, name));
  }

  bool make_instance(std::string& why) {
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "gpgpu";
    app.apiVersion = VK_API_VERSION_1_1;  // external memory and properties2 are core there
    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pApplicationInfo = &app;
    auto create = instance_fn<PFN_vkCreateInstance>("vkCreateInstance");
    if (create == nullptr || create(&info, nullptr, &instance_) != VK_SUCCESS) {
      instance_ = VK_NULL_HANDLE;
      return why = "vkCreateInstance failed (no Vulkan driver)", false;
    }
    vk_.destroy_instance = instance_fn<PFN_vkDestroyInstance>("vkDestroyInstance");
    vk_.enumerate = instance_fn<PFN_vkEnumeratePhysicalDevices>("vkEnumeratePhysicalDevices");
    vk_.properties2 =
        instance_fn<PFN_vkGetPhysicalDeviceProperties2>("vkGetPhysicalDeviceProperties2");
    vk_.memory_properties =
        instance_fn<PFN_vkGetPhysicalDeviceMemoryProperties>("vkGetPhysicalDeviceMemoryProperties");
    vk_.create_device = instance_fn<PFN_vkCreateDevice>("vkCreateDevice");
    return true;
  }

  bool pick_device(std::string& why) {
    std::array<GLubyte, GL_UUID_SIZE_EXT> gl_uuid{};
    gl_.get_uuid(GL_DEVICE_UUID_EXT, 0, gl_uuid.data());
    if (glGetError() != GL_NO_ERROR) return why = "GL gives no device UUID", false;
    uint32_t count = 0;
    vk_.enumerate(instance_, &count, nullptr);
    std::vector<VkPhysicalDevice> devices(count);
    vk_.enumerate(instance_, &count, devices.data());
    for (VkPhysicalDevice d : devices) {
      VkPhysicalDeviceIDProperties id{};
      id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
      VkPhysicalDeviceProperties2 properties{};
      properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
      properties.pNext = &id;
      vk_.properties2(d, &properties);
      if (std::memcmp(id.deviceUUID, gl_uuid.data(), VK_UUID_SIZE) == 0) {
        physical_ = d;
        return true;
      }
    }
    return why = fmt::format("none of the {} Vulkan devices is the GL context's", count), false;
  }

  bool make_device(std::string& why) {
    const float priority = 1;
    VkDeviceQueueCreateInfo queue{};
    queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    const char* extensions[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
    VkDeviceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = extensions;
    if (vk_.create_device(physical_, &info, nullptr, &device_) != VK_SUCCESS) {
      device_ = VK_NULL_HANDLE;
      return why = "vkCreateDevice with VK_KHR_external_memory_fd failed", false;
    }
    auto device_proc = instance_fn<PFN_vkGetDeviceProcAddr>("vkGetDeviceProcAddr");
    auto fn = [&](const char* name) { return device_proc(device_, name); };
    vk_.destroy_device = reinterpret_cast<PFN_vkDestroyDevice>(fn("vkDestroyDevice"));
    vk_.create_buffer = reinterpret_cast<PFN_vkCreateBuffer>(fn("vkCreateBuffer"));
    vk_.destroy_buffer = reinterpret_cast<PFN_vkDestroyBuffer>(fn("vkDestroyBuffer"));
    vk_.requirements =
        reinterpret_cast<PFN_vkGetBufferMemoryRequirements>(fn("vkGetBufferMemoryRequirements"));
    vk_.allocate = reinterpret_cast<PFN_vkAllocateMemory>(fn("vkAllocateMemory"));
    vk_.free = reinterpret_cast<PFN_vkFreeMemory>(fn("vkFreeMemory"));
    vk_.bind = reinterpret_cast<PFN_vkBindBufferMemory>(fn("vkBindBufferMemory"));
    vk_.get_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(fn("vkGetMemoryFdKHR"));
    return true;
  }

  uint32_t device_local_type(uint32_t allowed) const {
    VkPhysicalDeviceMemoryProperties p;
    vk_.memory_properties(physical_, &p);
    for (uint32_t i = 0; i < p.memoryTypeCount; ++i) {
      if ((allowed & (1u << i)) &&
          (p.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) {
        return i;
      }
    }
    return UINT32_MAX;
  }

  // A dedicated, exportable allocation of `bytes` for a storage buffer; its file descriptor,
  // or -1 with `why`.
  int allocate(std::size_t bytes, Allocation& a, std::string& why) {
    VkExternalMemoryBufferCreateInfo external{};
    external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.pNext = &external;
    // Whole 64 KiB pages: lavapipe's imports (zink) fail for sizes that are not page multiples.
    info.size = (bytes + page - 1) / page * page;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (vk_.create_buffer(device_, &info, nullptr, &a.buffer) != VK_SUCCESS) {
      a.buffer = VK_NULL_HANDLE;
      return why = "vkCreateBuffer failed", -1;
    }
    VkMemoryRequirements req;
    vk_.requirements(device_, a.buffer, &req);
    VkMemoryDedicatedAllocateInfo dedicated{};
    dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
    dedicated.buffer = a.buffer;
    VkExportMemoryAllocateInfo exported{};
    exported.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
    exported.pNext = &dedicated;
    exported.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo allocation{};
    allocation.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    allocation.pNext = &exported;
    allocation.allocationSize = req.size;
    allocation.memoryTypeIndex = device_local_type(req.memoryTypeBits);
    if (allocation.memoryTypeIndex == UINT32_MAX) return why = "no device-local memory type", -1;
    if (vk_.allocate(device_, &allocation, nullptr, &a.memory) != VK_SUCCESS) {
      a.memory = VK_NULL_HANDLE;
      return why = fmt::format("vkAllocateMemory({} bytes) failed", req.size), -1;
    }
    a.size = req.size;
    if (vk_.bind(device_, a.buffer, a.memory, 0) != VK_SUCCESS) {
      return why = "vkBindBufferMemory failed", -1;
    }
    VkMemoryGetFdInfoKHR get{};
    get.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
    get.memory = a.memory;
    get.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    if (vk_.get_fd(device_, &get, &fd) != VK_SUCCESS || fd < 0) {
      return why = "vkGetMemoryFdKHR failed", -1;
    }
    return fd;
  }

  // A GL buffer over the memory behind `fd` (which GL takes over when the import succeeds).
  GLuint import(std::size_t bytes, int fd, Allocation& a, std::string& why) {
    while (glGetError() != GL_NO_ERROR) {
    }
    gl_.create_objects(1, &a.object);
    const GLint dedicated = GL_TRUE;
    gl_.parameter(a.object, GL_DEDICATED_MEMORY_OBJECT_EXT, &dedicated);
    gl_.import_fd(a.object, a.size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
    if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
      ::close(fd);  // not taken by GL
      gl_.delete_objects(1, &a.object);
      a.object = 0;
      return why = fmt::format("glImportMemoryFdEXT failed ({})", gl_error_name(e)), 0;
    }
    GLuint buffer = 0;
    glGenBuffers(1, &buffer);
    glBindBuffer(GL_COPY_WRITE_BUFFER, buffer);
    gl_.storage(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(bytes), a.object, 0);
    const GLenum e = glGetError();
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    if (e != GL_NO_ERROR) {
      glDeleteBuffers(1, &buffer);
      gl_.delete_objects(1, &a.object);
      a.object = 0;
      return why = fmt::format("glBufferStorageMemEXT failed ({})", gl_error_name(e)), 0;
    }
    return buffer;
  }

  void free_vulkan(Allocation& a) noexcept {
    if (a.buffer != VK_NULL_HANDLE) vk_.destroy_buffer(device_, a.buffer, nullptr);
    if (a.memory != VK_NULL_HANDLE) vk_.free(device_, a.memory, nullptr);
    a = {};
  }

  GlImport gl_;
  Vk vk_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  std::map<GLuint, Allocation> live_;
};

}  // namespace

std::unique_ptr<BufferMemory> open_buffer_memory(const ContextState& state, std::string& why) {
  if (!state.info.has_extension("GL_EXT_memory_object_fd")) {
    why = "the device lacks GL_EXT_memory_object_fd";
    return nullptr;
  }
  auto memory = std::make_unique<VulkanBufferMemory>();
  if (!memory->open(why)) return nullptr;
  return memory;
}

}  // namespace gpgpu::detail
