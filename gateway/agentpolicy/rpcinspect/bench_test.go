package rpcinspect

import "testing"

func BenchmarkInspectBatch100(b *testing.B) {
	body := []byte(call(1, ToolVerifyBatch, batchArgs(100)))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Inspect(body, []byte("key")); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInspectVerify(b *testing.B) {
	body := []byte(call(1, "verify_address", `{"address":"Achtergracht 1, 1381 BK Weesp","lang":"en"}`))
	for b.Loop() {
		if _, err := Inspect(body, []byte("key")); err != nil {
			b.Fatal(err)
		}
	}
}
