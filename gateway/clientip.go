package gateway

import "context"

type clientIPKey struct{}

// WithClientIP gives the pages the gateway serves itself (Decision.Answer) the caller's
// address as the server determined it, trusted proxies considered: the dashboard limits
// sign-in mails per client.
func WithClientIP(ctx context.Context, ip string) context.Context {
	return context.WithValue(ctx, clientIPKey{}, ip)
}

// ClientIP is the address WithClientIP put in ctx, or "".
func ClientIP(ctx context.Context) string {
	ip, _ := ctx.Value(clientIPKey{}).(string)
	return ip
}
