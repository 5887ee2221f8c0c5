// Package authserver makes the gateway an OAuth 2.1 authorization server for agents.
package authserver

const grantRefresh = "refresh_token"
