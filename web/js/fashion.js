// The Fashion-MNIST demo: a CNN trained natively by `gpgpu train` and exported with
// `gpgpu export-web` (web/models/fashion-small), classifying test images and drawings on
// gpgpu::nn's transform-feedback backend in WebGL2.
import {el} from './page.js';

const side = 28;

// A 28 x 28 grey image (bytes, 0 = black background as in Fashion-MNIST) on a small canvas.
export function thumbnail(pixels, scale = 2) {
  const canvas = el('canvas', {width: side * scale, height: side * scale});
  const g = canvas.getContext('2d');
  const image = g.createImageData(side, side);
  for (let i = 0; i < side * side; ++i) {
    image.data.set([pixels[i], pixels[i], pixels[i], 255], 4 * i);
  }
  const small = el('canvas', {width: side, height: side});
  small.getContext('2d').putImageData(image, 0, 0);
  g.imageSmoothingEnabled = false;
  g.drawImage(small, 0, 0, side * scale, side * scale);
  return canvas;
}

export function softmax(logits) {
  const max = Math.max(...logits);
  const e = logits.map((x) => Math.exp(x - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

export async function loadDemo(gpgpu, url) {
  const base = url.endsWith('/') ? url : url + '/';
  const model = await gpgpu.loadModel(base);
  const bytes = async (name) => new Uint8Array(await (await fetch(base + name)).arrayBuffer());
  return {model, images: await bytes('samples.u8'), labels: await bytes('sample-labels.u8')};
}

// The test images with the model's class for each, marked where it is wrong.
export function classifySamples(demo, shown, container) {
  const count = demo.labels.length;
  const started = performance.now();
  const classes = demo.model.classify(demo.images, count);
  const ms = performance.now() - started;
  let correct = 0;
  for (let i = 0; i < count; ++i) {
    if (classes[i] === demo.labels[i]) ++correct;
    if (i >= shown) continue;
    const ok = classes[i] === demo.labels[i];
    container.append(el('figure', {class: ok ? 'right' : 'wrong'},
                        thumbnail(demo.images.subarray(i * side * side, (i + 1) * side * side)),
                        el('figcaption', {text: demo.model.classes[classes[i]] +
                                               (ok ? '' : ` (is ${demo.model.classes[demo.labels[i]]})`)})));
  }
  return {count, correct, ms};
}

// A canvas to draw on with the mouse (white on black, like the data set); every stroke
// classifies the drawing again.
export function drawingPad(demo, container) {
  const size = 224;
  const pad = el('canvas', {width: size, height: size, class: 'pad'});
  const bars = el('div', {class: 'bars'});
  const g = pad.getContext('2d');
  const clear = () => {
    g.fillStyle = '#000';
    g.fillRect(0, 0, size, size);
    bars.textContent = 'draw a piece of clothing';
  };
  clear();
  let drawing = false;
  const at = (e) => {
    const r = pad.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  };
  pad.addEventListener('pointerdown', (e) => { drawing = true; g.beginPath(); g.moveTo(...at(e)); });
  pad.addEventListener('pointermove', (e) => {
    if (!drawing) return;
    g.strokeStyle = '#fff';
    g.lineWidth = 18;
    g.lineCap = g.lineJoin = 'round';
    g.lineTo(...at(e));
    g.stroke();
  });
  const finish = () => {
    if (!drawing) return;
    drawing = false;
    classifyDrawing(demo, pad, bars);
  };
  pad.addEventListener('pointerup', finish);
  pad.addEventListener('pointerleave', finish);
  container.append(pad, el('button', {text: 'clear'}), bars);
  container.querySelector('button').addEventListener('click', clear);
  return {pad, bars, classify: () => classifyDrawing(demo, pad, bars)};
}

// The drawing scaled to 28 x 28 (mean of each 8 x 8 cell), then classified.
export function classifyDrawing(demo, pad, bars) {
  const small = el('canvas', {width: side, height: side});
  const g = small.getContext('2d');
  g.imageSmoothingQuality = 'high';
  g.drawImage(pad, 0, 0, side, side);
  const rgba = g.getImageData(0, 0, side, side).data;
  const pixels = new Uint8Array(side * side);
  for (let i = 0; i < pixels.length; ++i) pixels[i] = rgba[4 * i];
  const probabilities = softmax(Array.from(demo.model.forward(pixels, 1)));
  bars.replaceChildren(...probabilities
      .map((p, c) => [p, c]).sort((a, b) => b[0] - a[0]).slice(0, 5)
      .map(([p, c]) => el('div', {class: 'bar', style: `width: ${Math.round(200 * p) + 2}px`,
                                  text: `${demo.model.classes[c]} ${(100 * p).toFixed(1)}%`})));
  return probabilities;
}
