"""AdamW and SGD over clforge_optimizer_step, as torch.optim spells them:
the parameters are pyopencl arrays (f32, f16 or bf16; 16-bit ones get f32
master weights), step(grads) updates them on the device with no host round
trip, and loss_scale= turns on dynamic loss scaling (the state stays on the
device: read it with .state)."""
import ctypes
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call, dtype_code, is_device
from ._capi import OptimizerDesc, OptimizerTensor, lib
from .errors import check


class _Optimizer:
    def __init__(self, kind, params, lr, loss_scale, growth_factor, backoff_factor, growth_interval, op):
        import pyopencl.array as cla
        self.op = op
        self.params = list(params)
        if not self.params:
            raise ValueError("%s: optimizer got an empty parameter list" % op)
        for p in self.params:
            if not is_device(p):
                raise TypeError("%s: parameters must be pyopencl arrays (training runs on the device)" % op)
            if p.size > 1 and not p.flags.c_contiguous:
                raise ValueError("%s: parameters must be contiguous" % op)
            dtype_code(p.dtype, op, "a parameter")
        q = self.params[0].queue
        self.desc = OptimizerDesc()
        self.desc.kind, self.desc.lr = kind, float(lr)
        self.desc.loss_scaling = 1 if loss_scale is not None else 0
        self.desc.growth_factor, self.desc.backoff_factor = float(growth_factor), float(backoff_factor)
        self.desc.growth_interval = int(growth_interval)
        f32 = np.float32
        self.masters = [None if p.dtype == f32 else cla.to_device(q, p.get().astype(f32)) for p in self.params]
        self.m = [cla.zeros(q, p.shape, f32) for p in self.params]
        self.v = [cla.zeros(q, p.shape, f32) if kind == 1 else None for p in self.params]
        s = np.zeros(4, np.int32)
        s.view(np.float32)[0] = 1.0 if loss_scale is None else float(loss_scale)
        self._state = cla.to_device(q, s)

    @property
    def state(self):
        """The device state: {'scale', 'good_steps', 'skipped', 'step'}."""
        s = self._state.get()
        return {"scale": float(s.view(np.float32)[0]), "good_steps": int(s[1]), "skipped": bool(s[2]),
                "step": int(s[3])}

    @property
    def scale(self):
        """The loss scale gradients must carry (cross_entropy's grad_scale)."""
        return self.state["scale"]

    def step(self, grads):
        """One step with these gradients (pyopencl arrays, one per parameter,
        of its shape; f32, f16 or bf16), scaled by the loss scale when loss
        scaling is on."""
        grads = list(grads)
        if len(grads) != len(self.params):
            raise ValueError("%s: %d gradients for %d parameters" % (self.op, len(grads), len(self.params)))
        arrays = [a for group in (self.params, grads, self.masters, self.m, self.v) for a in group if a is not None]
        with Call(self.op, arrays + [self._state], None) as call:
            ts = (OptimizerTensor * len(self.params))()
            for i, (p, g) in enumerate(zip(self.params, grads)):
                if not is_device(g) or tuple(g.shape) != tuple(p.shape) or (g.size > 1 and not g.flags.c_contiguous):
                    raise ValueError("%s: gradient %d must be a contiguous pyopencl array of shape %s"
                                     % (self.op, i, tuple(p.shape)))
                t = ts[i]
                t.count = p.size
                t.param_type, t.grad_type = dtype_code(p.dtype, self.op, "a parameter"), dtype_code(g.dtype, self.op,
                                                                                                    "a gradient")
                bufs = (("param", p), ("grad", g), ("master", self.masters[i]), ("m", self.m[i]), ("v", self.v[i]))
                for name, a in bufs:
                    if a is None:
                        continue
                    call.add_waits(a)
                    setattr(t, name, a.base_data.int_ptr)
                    setattr(t, name + "_offset", a.offset // a.dtype.itemsize)
            call.add_waits(self._state)
            event = c_void_p()
            nw, wl = call.wait_list()
            check(lib.clforge_optimizer_step(call.handle, byref(self.desc), len(self.params), ts,
                                             self._state.base_data.int_ptr, nw, wl, byref(event)), call.handle)
            import pyopencl as pcl
            for a in self.params + [x for x in self.masters + self.m + self.v if x is not None]:
                call.attach(a, pcl.Event.from_int_ptr(event.value, retain=True))
            call.attach(self._state, pcl.Event.from_int_ptr(event.value, retain=False))


class AdamW(_Optimizer):
    """torch.optim.AdamW(params, lr, betas, eps, weight_decay) on the device."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, *, loss_scale=None,
                 growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        super().__init__(1, params, lr, loss_scale, growth_factor, backoff_factor, growth_interval, "AdamW")
        self.desc.beta1, self.desc.beta2 = float(betas[0]), float(betas[1])
        self.desc.eps, self.desc.weight_decay = float(eps), float(weight_decay)


class SGD(_Optimizer):
    """torch.optim.SGD(params, lr, momentum, dampening, weight_decay, nesterov) on the device."""

    def __init__(self, params, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, *,
                 loss_scale=None, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        super().__init__(0, params, lr, loss_scale, growth_factor, backoff_factor, growth_interval, "SGD")
        self.desc.momentum, self.desc.dampening = float(momentum), float(dampening)
        self.desc.weight_decay, self.desc.nesterov = float(weight_decay), 1 if nesterov else 0
        if momentum == 0.0:  # no momentum buffer to keep
            self.m = [None] * len(self.params)


del ctypes
