package codehost

// SetKeysURL points the discovered key set elsewhere, for tests of GitLab's keys being
// unreachable after the token exchange worked.
func (g *GitLab) SetKeysURL(u string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.found.jwksURL = u
}
