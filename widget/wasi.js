// The few WASI calls a Go wasip1 reactor makes, for browsers, which have no WASI of their
// own. The form's core never touches files, arguments or the environment; what it does need
// is a clock, randomness (the session ids, from crypto.getRandomValues) and somewhere for the
// Go runtime to write a panic. Everything else answers "no such file" or "not supported",
// which ends the runtime's probing at start-up. wasm/wasm_test.go (TestImports) fails when
// the module starts importing a call this shim does not answer.

const ESUCCESS = 0;
const EBADF = 8;
const ENOSYS = 52;

export function wasiImports(getMemory) {
  const view = () => new DataView(getMemory().buffer); // re-read: memory can grow
  const bytes = () => new Uint8Array(getMemory().buffer);
  const decoder = new TextDecoder();
  let line = '';

  return {
    args_sizes_get(argc, bufSize) {
      view().setUint32(argc, 0, true);
      view().setUint32(bufSize, 0, true);
      return ESUCCESS;
    },
    args_get: () => ESUCCESS,
    environ_sizes_get(count, bufSize) {
      view().setUint32(count, 0, true);
      view().setUint32(bufSize, 0, true);
      return ESUCCESS;
    },
    environ_get: () => ESUCCESS,
    clock_time_get(id, _precision, out) {
      const ns = id === 0
        ? BigInt(Date.now()) * 1000000n
        : BigInt(Math.round(performance.now() * 1e6));
      view().setBigUint64(out, ns, true);
      return ESUCCESS;
    },
    random_get(ptr, len) {
      // getRandomValues fills at most 64 KiB per call.
      for (let off = 0; off < len; off += 65536) {
        crypto.getRandomValues(bytes().subarray(ptr + off, ptr + Math.min(len, off + 65536)));
      }
      return ESUCCESS;
    },
    fd_write(fd, iovs, iovsLen, nwritten) {
      // Only the Go runtime writes (a panic, to stderr); never what a customer typed, which
      // the core does not print.
      const v = view();
      let n = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = v.getUint32(iovs + i * 8, true);
        const len = v.getUint32(iovs + i * 8 + 4, true);
        line += decoder.decode(bytes().subarray(ptr, ptr + len));
        n += len;
      }
      const parts = line.split('\n');
      line = parts.pop();
      for (const p of parts) (fd === 2 ? console.error : console.log)('adreswijzer:', p);
      v.setUint32(nwritten, n, true);
      return ESUCCESS;
    },
    fd_fdstat_get(fd, out) {
      if (fd > 2) return EBADF;
      const v = view();
      for (let i = 0; i < 24; i++) v.setUint8(out + i, 0);
      v.setUint8(out, 2); // filetype: character device
      return ESUCCESS;
    },
    fd_fdstat_set_flags: () => ENOSYS,
    fd_prestat_get: () => EBADF, // no preopened directories: ends Go's scan for them
    fd_prestat_dir_name: () => EBADF,
    fd_close: () => ESUCCESS,
    poll_oneoff: () => ENOSYS, // only reached if Go code sleeps, which the core never does
    sched_yield: () => ESUCCESS,
    proc_exit(code) {
      throw new Error(`adreswijzer: the form's core exited (${code})`);
    },
  };
}

// loadReactor instantiates and initialises a Go wasip1 reactor from its response (or URL),
// compiling it while it downloads.
export async function loadReactor(from) {
  let memory;
  const imports = { wasi_snapshot_preview1: wasiImports(() => memory) };
  const response = from instanceof Response ? from : await fetch(from, { credentials: 'omit' });
  if (!response.ok) throw new Error(`adreswijzer: loading the form's core failed (${response.status})`);
  const streaming = (response.headers.get('Content-Type') || '').startsWith('application/wasm');
  const result = streaming
    ? await WebAssembly.instantiateStreaming(response, imports)
    : await WebAssembly.instantiate(await response.arrayBuffer(), imports); // served without application/wasm
  const exports = result.instance.exports;
  memory = exports.memory;
  exports._initialize(); // a reactor: the Go runtime starts here, main never runs
  return exports;
}
