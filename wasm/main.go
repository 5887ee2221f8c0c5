//go:build wasip1

// Command wasm is the address form's core (package form) built as a WASI reactor, the one
// file the web component loads:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" \
//	    -gcflags="github.com/adreswijzer/adreswijzer/...=-l" -o widget/adreswijzer.wasm ./wasm
//
// A reactor rather than a command because the form lives as long as the page: the host calls
// _initialize once, then the exports below for every event, and the Go runtime and the forms'
// state stay between calls. Strings cross as JSON bytes in memory the host gets from alloc;
// results come back as ptr<<32|len, valid until the next call.
package main

import (
	"unsafe"

	"github.com/adreswijzer/adreswijzer/wasm/form"
)

// main is required by the toolchain and never runs in c-shared mode.
func main() {}

var (
	// pinned keeps the buffers handed to the host reachable (the GC must not reclaim memory
	// the host is writing into) and tells which pointers are ours to read.
	pinned = map[uint32][]byte{}
	forms  = map[uint32]*form.Machine{}
	last   uint32
	// out is the latest result; the host copies it before its next call.
	out []byte
)

//go:wasmexport alloc
func alloc(size uint32) uint32 {
	buf := make([]byte, size+1) // +1: a zero-size request still gets a distinct address
	p := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
	pinned[p] = buf[:size]
	return p
}

//go:wasmexport free
func free(ptr uint32) { delete(pinned, ptr) }

// input copies what the host wrote, so the host may free its buffer at once.
func input(ptr, size uint32) []byte {
	buf, ok := pinned[ptr]
	if !ok || size > uint32(len(buf)) {
		return nil
	}
	return append([]byte(nil), buf[:size]...)
}

func result(b []byte) uint64 {
	out = b
	if len(out) == 0 {
		return 0
	}
	return uint64(uint32(uintptr(unsafe.Pointer(unsafe.SliceData(out)))))<<32 | uint64(len(out))
}

// create starts a form from a JSON config ({"country":"NL","lang":"nl","carrier":"postnl"})
// and returns its handle; a page can hold several forms (shipping and billing).
//
//go:wasmexport create
func create(ptr, size uint32) uint32 {
	last++
	forms[last] = form.New(form.ConfigJSON(input(ptr, size)), hostRandom{})
	return last
}

// event runs one JSON event on a form and returns the JSON result (effects and view). An
// unknown handle returns nothing (0).
//
//go:wasmexport event
func event(handle, ptr, size uint32) uint64 {
	m, ok := forms[handle]
	if !ok {
		return result(nil)
	}
	return result(m.HandleJSON(input(ptr, size)))
}

// hostRandom reads the host's cryptographic random source through WASI random_get: in the
// browser crypto.getRandomValues, under wazero the operating system's. It is what
// crypto/rand.Reader reads on wasip1, without the 0.7 MB that importing crypto/rand adds
// (math/big, fmt and reflect, for its prime and integer helpers) to a file every shopper
// downloads; imported directly rather than through package syscall, which adds 14 kB.
type hostRandom struct{}

//go:wasmimport wasi_snapshot_preview1 random_get
func randomGet(buf unsafe.Pointer, size uint32) uint32

func (hostRandom) Read(b []byte) (int, error) {
	if len(b) > 0 && randomGet(unsafe.Pointer(unsafe.SliceData(b)), uint32(len(b))) != 0 {
		return 0, errRandom
	}
	return len(b), nil
}

// errRandom: the host gave no random bytes; the session id is then all zeros, still well-formed.
var errRandom = randomError{}

type randomError struct{}

func (randomError) Error() string { return "random_get failed" }

//go:wasmexport destroy
func destroy(handle uint32) { delete(forms, handle) }
