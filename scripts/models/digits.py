#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Trains the digits model of `make run` and writes it as ONNX, FP32 and INT8.

The data are scikit-learn's handwritten digits (1797 images of 8x8 pixels,
values 0..16, shipped in Debian's python3-sklearn). A fixed split keeps 20%
out of training; those images and their labels are written as tensor files
so that the runtime can measure the held-out accuracy on its own.

Outputs (umd/examples/models/):
  digits_fp32.onnx        the trained CNN, opset 13, input "image" [N,1,8,8]
  digits_int8_qdq.onnx    the same with QuantizeLinear/DequantizeLinear pairs
                          (activations int8 per tensor, weights int8 per
                          output channel, biases int32), calibrated on the
                          training images, placed as onnxruntime's static
                          quantiser places them: Conv -> Relu -> Q, and
                          MaxPool and Flatten between a DQ and a Q of one
                          scale and zero point, so that the runtime fuses
                          them into QLinearConv and integer pooling
  digits_test_images.pb   float [360,1,8,8], pixel / 16
  digits_test_labels.pb   int64 [360]
  digits_expected_*.pb    PyTorch's logits [360,10] for both models on those
                          images (the INT8 one simulated: the QDQ arithmetic)
and prints the accuracy of each model on the held-out images, computed here
with PyTorch, for the runtime's figures to be compared with.

Reproducible: fixed seeds, one thread, deterministic algorithms. Run with
Debian's python3 (python3-torch, python3-sklearn, python3-onnx):
  /usr/bin/python3 scripts/models/digits.py
"""

import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

SEED = 0
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../umd/examples/models")


def data():
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    return train_test_split(images, digits.target.astype(np.int64), test_size=0.2,
                            random_state=SEED, stratify=digits.target)


def network():
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(16 * 2 * 2, 10))


def train(model, images, labels):
    optimiser = torch.optim.Adam(model.parameters(), lr=0.01)
    x, y = torch.from_numpy(images), torch.from_numpy(labels)
    generator = torch.Generator().manual_seed(SEED)
    for _ in range(40):
        order = torch.randperm(len(x), generator=generator)
        for start in range(0, len(x), 64):
            batch = order[start:start + 64]
            optimiser.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[batch]), y[batch])
            loss.backward()
            optimiser.step()
    model.eval()


def accuracy(logits, labels):
    return float((np.argmax(logits, axis=1) == labels).mean())


# --- INT8 QDQ -------------------------------------------------------------

def activation_params(low, high):
    """Asymmetric int8: the range [low, high] widened to hold 0."""
    low, high = min(low, 0.0), max(high, 0.0)
    scale = (high - low) / 255.0 or 1.0
    zero = int(np.clip(np.round(-128 - low / scale), -128, 127))
    return np.float32(scale), np.int8(zero)


def quantize(x, scale, zero):
    """QuantizeLinear's rule: round half to even, then saturate."""
    return np.clip(np.rint(x / scale) + zero, -128, 127).astype(np.int8)


def fake_quantize(x, scale, zero):
    return (quantize(x, scale, zero).astype(np.float32) - zero) * scale


def activation_ranges(model, images):
    """Min and max of the input and of each layer's output over the calibration set."""
    ranges = [(float(images.min()), float(images.max()))]
    with torch.no_grad():
        x = torch.from_numpy(images)
        for layer in model:
            x = layer(x)
            ranges.append((float(x.min()), float(x.max())))
    return ranges


def quantization_plan(model, params):
    """Where the QDQ model quantises, as onnxruntime's static quantiser does:
    for each layer, the (scale, zero) of the QuantizeLinear after it, or None
    for a Conv2d or Linear followed by a ReLU (quantised once, after the ReLU,
    with the ReLU output's parameters, so that Conv -> Relu -> Q fuses);
    MaxPool2d and Flatten keep their input's parameters. Also, for each
    layer, the parameters of its input. params[0] is the image's,
    params[i + 1] layer i's output range."""
    outputs, inputs = [], []
    current = params[0]
    for i, layer in enumerate(model):
        inputs.append(current)
        followed_by_relu = i + 1 < len(model) and isinstance(model[i + 1], torch.nn.ReLU)
        if isinstance(layer, (torch.nn.Conv2d, torch.nn.Linear)) and followed_by_relu:
            outputs.append(None)
            continue
        if not isinstance(layer, (torch.nn.MaxPool2d, torch.nn.Flatten)):
            current = params[i + 1]
        outputs.append(current)
    return outputs, inputs


def qdq_reference(model, images, params):
    """The QDQ model's arithmetic in float, in PyTorch: what the ONNX file
    computes when each node runs as written (not fused)."""
    outputs, inputs = quantization_plan(model, params)
    with torch.no_grad():
        x = torch.from_numpy(fake_quantize(images, *params[0]))
        for i, layer in enumerate(model):
            if isinstance(layer, (torch.nn.Conv2d, torch.nn.Linear)):
                w, b, w_scale = quantized_weights(layer, inputs[i][0])
                layer = type(layer).__new__(type(layer))
                layer.__dict__ = dict(model[i].__dict__)
                layer.weight = torch.nn.Parameter(torch.from_numpy(w))
                layer.bias = torch.nn.Parameter(torch.from_numpy(b))
            x = layer(x)
            if outputs[i] is not None:
                x = torch.from_numpy(fake_quantize(x.numpy(), *outputs[i]))
    return x.numpy()


def quantized_weights(layer, input_scale):
    """Per-output-channel symmetric int8 weights and int32 bias, dequantized."""
    w = layer.weight.detach().numpy()
    w_scale = (np.abs(w.reshape(w.shape[0], -1)).max(axis=1) / 127.0).astype(np.float32)
    w_scale[w_scale == 0] = 1.0
    shape = (-1,) + (1,) * (w.ndim - 1)
    w_q = np.clip(np.rint(w / w_scale.reshape(shape)), -127, 127).astype(np.int8)
    b_scale = (input_scale * w_scale).astype(np.float32)
    b_q = np.rint(layer.bias.detach().numpy() / b_scale).astype(np.int32)
    return ((w_q.astype(np.float32) * w_scale.reshape(shape)).astype(np.float32),
            (b_q.astype(np.float32) * b_scale).astype(np.float32), w_scale)


def to_qdq(fp32, model, params):
    """Rewrites the exported graph: a QuantizeLinear/DequantizeLinear pair on
    the activations quantization_plan() quantises, weights and biases stored
    quantized behind a DequantizeLinear. Nodes map to the layers of `model`
    in order."""
    graph = fp32.graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    nodes, initializers = [], []

    def qdq(name, scale, zero):
        initializers.append(numpy_helper.from_array(np.array(scale, np.float32), name + "_scale"))
        initializers.append(numpy_helper.from_array(np.array(zero, np.int8), name + "_zero"))
        nodes.append(helper.make_node("QuantizeLinear", [name, name + "_scale", name + "_zero"],
                                      [name + "_q"]))
        nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_scale",
                                      name + "_zero"], [name + "_dq"]))
        return name + "_dq"

    def dequantized_constant(name, values, scale, dtype):
        initializers.append(numpy_helper.from_array(values.astype(dtype), name + "_quant"))
        initializers.append(numpy_helper.from_array(scale, name + "_scale"))
        initializers.append(numpy_helper.from_array(np.zeros(scale.shape, dtype), name + "_zero"))
        nodes.append(helper.make_node("DequantizeLinear", [name + "_quant", name + "_scale",
                                      name + "_zero"], [name + "_dq"], axis=0))
        return name + "_dq"

    logits = graph.output[0].name
    outputs, inputs = quantization_plan(model, params)
    renamed = {graph.input[0].name: qdq(graph.input[0].name, *params[0])}
    compute = [n for n in graph.node if n.op_type not in ("Constant",)]
    assert len(compute) == len(model), [n.op_type for n in compute]
    for i, (node, layer) in enumerate(zip(compute, model)):
        node_inputs = [renamed.get(name, name) for name in node.input]
        if isinstance(layer, (torch.nn.Conv2d, torch.nn.Linear)):
            in_scale = inputs[i][0]
            w = inits[node.input[1]]
            _, _, w_scale = quantized_weights(layer, in_scale)
            shape = (-1,) + (1,) * (w.ndim - 1)
            w_q = np.clip(np.rint(w / w_scale.reshape(shape)), -127, 127)
            b_scale = (in_scale * w_scale).astype(np.float32)
            b_q = np.rint(inits[node.input[2]] / b_scale)
            node_inputs[1] = dequantized_constant(node.input[1], w_q, w_scale, np.int8)
            node_inputs[2] = dequantized_constant(node.input[2], b_q, b_scale, np.int32)
        out = node.output[0] if node.output[0] != logits else "logits_float"
        nodes.append(helper.make_node(node.op_type, node_inputs, [out], name=node.name,
                                      **{a.name: helper.get_attribute_value(a)
                                         for a in node.attribute}))
        if outputs[i] is not None:
            renamed[out] = qdq(out, *outputs[i])

    nodes.append(helper.make_node("Identity", [renamed["logits_float"]], [logits]))
    used = {n for node in nodes for n in node.input}
    keep = [t for t in graph.initializer if t.name in used]
    out_info = helper.make_tensor_value_info(logits, TensorProto.FLOAT, ["N", 10])
    qgraph = helper.make_graph(nodes, "digits_int8_qdq", list(graph.input), [out_info],
                               keep + initializers)
    qmodel = helper.make_model(qgraph, opset_imports=[helper.make_opsetid("", 13)],
                               producer_name="vdla scripts/models/digits.py")
    qmodel.ir_version = fp32.ir_version
    onnx.checker.check_model(qmodel)
    return qmodel


def main():
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    train_x, test_x, train_y, test_y = data()
    model = network()
    train(model, train_x, train_y)

    os.makedirs(OUT, exist_ok=True)
    fp32_path = os.path.join(OUT, "digits_fp32.onnx")
    torch.onnx.export(model, torch.from_numpy(test_x[:1]), fp32_path, opset_version=13,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "N"}, "logits": {0: "N"}})
    fp32 = onnx.load(fp32_path)
    onnx.checker.check_model(fp32)

    params = [activation_params(*r) for r in activation_ranges(model, train_x)]
    qmodel = to_qdq(fp32, model, params)
    onnx.save(qmodel, os.path.join(OUT, "digits_int8_qdq.onnx"))

    images = numpy_helper.from_array(test_x, "image")
    labels = numpy_helper.from_array(test_y, "label")
    with open(os.path.join(OUT, "digits_test_images.pb"), "wb") as f:
        f.write(images.SerializeToString())
    with open(os.path.join(OUT, "digits_test_labels.pb"), "wb") as f:
        f.write(labels.SerializeToString())

    with torch.no_grad():
        fp32_logits = model(torch.from_numpy(test_x)).numpy()
    int8_logits = qdq_reference(model, test_x, params)
    # PyTorch's logits: the independent reference of the runtime's tests.
    for name, logits in (("fp32", fp32_logits), ("int8", int8_logits)):
        tensor = numpy_helper.from_array(logits.astype(np.float32), "logits")
        with open(os.path.join(OUT, f"digits_expected_{name}.pb"), "wb") as f:
            f.write(tensor.SerializeToString())
    print(f"held-out images: {len(test_y)}")
    print(f"accuracy fp32 (PyTorch): {accuracy(fp32_logits, test_y):.4f}")
    print(f"accuracy int8 QDQ (PyTorch, simulated): {accuracy(int8_logits, test_y):.4f}")
    for name in ("digits_fp32.onnx", "digits_int8_qdq.onnx", "digits_test_images.pb",
                 "digits_test_labels.pb", "digits_expected_fp32.pb", "digits_expected_int8.pb"):
        print(f"{name}: {os.path.getsize(os.path.join(OUT, name))} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
