#!/usr/bin/env python3
"""Train the CNN on Fashion-MNIST for one epoch from NumPy arrays, then predict.

    /usr/bin/python3 examples/python/train_cnn.py                     # 60,000 images, the "cnn"
    /usr/bin/python3 examples/python/train_cnn.py --limit 2000 --net small    # a quick run

Runs on the GPU when there is one (the compute backend), else on the CPU cores (llvmpipe
machines get the cpu backend). Needs Fashion-MNIST (Debian: dataset-fashion-mnist).
"""
import argparse

import numpy as np

import gpgpu.nn as nn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--limit", type=int, default=0, help="train on the first N images (0: all)")
parser.add_argument("--net", default="cnn", help="a built-in net: " + ", ".join(nn.builtin_names()))
args = parser.parse_args()

# The data as NumPy arrays: uint8 images (N, 1, 28, 28) and int32 labels, scaled to floats.
train_images, train_labels = nn.load_fashion_mnist("train", limit=args.limit)
test_images, test_labels = nn.load_fashion_mnist("t10k", limit=args.limit // 6)
x_train = train_images.astype(np.float32) / 255
x_test = test_images.astype(np.float32) / 255

# The network and its recipe (batch, optimizer): conv 32 5x5 - pool - conv 64 5x5 - pool -
# dense 128 - dense 10 for "cnn".
model = nn.builtin(args.net, input_shape=(1, 28, 28), classes=10)
model.initialize(seed=1)
print(model)

# One epoch, with gpgpu train's progress bar, and the test set's loss after it.
history = model.train(x_train, train_labels, epochs=1, validation=(x_test, test_labels))
print(f"epoch 1: train loss {history[0]['loss']:.4f}, test accuracy "
      f"{100 * history[0]['val_accuracy']:.2f}%, {history[0]['images_per_second']:.0f} images/s")

# Predictions: probabilities from the logits, and the classes.
logits = model.predict(x_test[:8], logits=True)
probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
probabilities /= probabilities.sum(axis=1, keepdims=True)
names = nn.fashion_mnist_classes()
for p, label in zip(probabilities, test_labels[:8]):
    guess = int(np.argmax(p))
    print(f"  {names[guess]:<12} {100 * p[guess]:5.1f}%   (truth: {names[label]})")
accuracy = (model.classify(x_test) == test_labels).mean()
print(f"test accuracy {100 * accuracy:.2f}% on {len(x_test)} images")
assert accuracy > 0.5, "one epoch should classify most test images"
