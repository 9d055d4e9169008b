"""Keras 3 (torch backend) model.fit: 3 epochs of 10 steps with the default progress bar."""
import keras
import numpy as np

rng = np.random.default_rng(0)
x = rng.normal(size=(320, 8)).astype("float32")
y = x.sum(axis=1, keepdims=True)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(x, y, epochs=3, batch_size=32)
