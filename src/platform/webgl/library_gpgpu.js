// Emscripten JS library of the WebGL2 platform (webgl_context.cpp): one canvas per
// gpgpu::Context, never shown, registered as an event target so that
// emscripten_webgl_create_context finds it by name.
mergeInto(LibraryManager.library, {
  $gpgpuCanvases: {next: 0},

  gpgpu_webgl_new_canvas__deps: ['$specialHTMLTargets', '$gpgpuCanvases'],
  gpgpu_webgl_new_canvas: function(name, capacity) {
    var canvas = typeof OffscreenCanvas != 'undefined' ? new OffscreenCanvas(1, 1)
                                                       : document.createElement('canvas');
    if (!(typeof OffscreenCanvas != 'undefined' && canvas instanceof OffscreenCanvas)) {
      canvas.width = 1;
      canvas.height = 1;
    }
    var target = '!gpgpu-' + (gpgpuCanvases.next++);
    specialHTMLTargets[target] = canvas;
    stringToUTF8(target, name, capacity);
  },

  gpgpu_webgl_drop_canvas__deps: ['$specialHTMLTargets'],
  gpgpu_webgl_drop_canvas: function(name) {
    delete specialHTMLTargets[UTF8ToString(name)];
  },

  gpgpu_webgl_unmasked_renderer: function(text, capacity) {
    var gl = GLctx;
    var info = gl && gl.getExtension('WEBGL_debug_renderer_info');
    var renderer = info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : '';
    stringToUTF8(renderer || '', text, capacity);
  },
});
