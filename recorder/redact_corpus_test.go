package recorder_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/recorder"
)

// The corpus below measures the built-in redactor against secrets in the
// shapes tools print them in (gitleaks' rule set was the guide to which
// shapes are common) and against text that only looks like them. Every
// secret in it is made up.

// corpusSecrets are secrets in realistic surroundings; secret is the part
// that must not survive redaction.
var corpusSecrets = []struct{ name, text, secret string }{
	{"an AWS access key id in a CLI config", "[default]\naws_access_key_id = AKIAZ7QX4N2LMPB3KD5W\nregion = eu-west-1", "AKIAZ7QX4N2LMPB3KD5W"},
	{"an AWS secret key in a credentials file", "[default]\naws_secret_access_key = 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\n", "q8Vb2Lm+Zr7TnKx0WcPd4Hs9Je/Ay1GfUo6RtEi3"},
	{"an AWS secret key in an env export", "export AWS_SECRET_ACCESS_KEY=Xc9dPq2Rs7Tu4Vw1Yz8Ab3Cd6Ef0Gh5Ij2Kl7Mn4", "Xc9dPq2Rs7Tu4Vw1Yz8Ab3Cd6Ef0Gh5Ij2Kl7Mn4"},
	{"an STS SecretAccessKey in JSON", `{"Credentials":{"AccessKeyId":"ASIAQ4TR7YHN2KXW9PLM","SecretAccessKey":"hT4kL9pQ2wX7zR1mN6vB3cF8jD0sG5aE2yU7iO4t","SessionToken":"IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD","Expiration":"2026-11-27T05:15:00Z"}}`, "hT4kL9pQ2wX7zR1mN6vB3cF8jD0sG5aE2yU7iO4t"},
	{"an STS session token in JSON", `{"Credentials":{"AccessKeyId":"ASIAQ4TR7YHN2KXW9PLM","SecretAccessKey":"hT4kL9pQ2wX7zR1mN6vB3cF8jD0sG5aE2yU7iO4t","SessionToken":"IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD"}}`, "IQoJb3JpZ2luX2VjEJr"},
	{"an STS access key id in JSON", `{"AccessKeyId": "ASIAQ4TR7YHN2KXW9PLM", "Expiration": "2026-11-27T05:15:00Z"}`, "ASIAQ4TR7YHN2KXW9PLM"},
	{"an Azure storage connection string", "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDRA==;EndpointSuffix=core.windows.net", "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDRA=="},
	{"an Azure connection string in appsettings.json", `{"ConnectionStrings":{"Blob":"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=cXdlcnR5dWlvcGFzZGZnaGprbHp4Y3Zibm0xMjM0NTY3ODkwcXdlcnR5dWlvcA==;EndpointSuffix=core.windows.net"}}`, "cXdlcnR5dWlvcGFzZGZnaGprbHp4Y3Zibm0xMjM0NTY3ODkwcXdlcnR5dWlvcA=="},
	{"an Azure client secret", `az login --service-principal -u 0f3c2a1b-5d6e-4f70-8a9b-c0d1e2f3a4b5 --password "Qk8~vT3.xZ9qLm_2Nw7Rb4Yc1Hd6Fj0Ks5Gp" --tenant acme.onmicrosoft.com`, "Qk8~vT3.xZ9qLm_2Nw7Rb4Yc1Hd6Fj0Ks5Gp"},
	{"a GCP service-account private key", `{"type": "service_account", "project_id": "acme-prod", "private_key_id": "3b9f2c8e1d7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDf3kQ7Zp\n-----END PRIVATE KEY-----\n", "client_email": "ci@acme-prod.iam.gserviceaccount.com"}`, "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDf3kQ7Zp"},
	{"a GCP API key in a URL", "GET https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key=AIzaSyD4x9Kq2Lm7Np3Rs8Tv1Wx6Yz0Ab5Cd2Ef", "AIzaSyD4x9Kq2Lm7Np3Rs8Tv1Wx6Yz0Ab5Cd2Ef"},
	{"a GitHub classic token in a git remote", "remote: origin https://ghp_R7kP2mX9qL4vN8sT1wY6zB3cF0hJ5dG2aE7u@github.com/acme/api.git", "ghp_R7kP2mX9qL4vN8sT1wY6zB3cF0hJ5dG2aE7u"},
	{"a GitHub token in gh auth status", "  ✓ Token: gho_9Xk2Lp7Qm4Rn1Sv8Tw3Uy6Vz0Ab5Cd2Ef9Gh", "gho_9Xk2Lp7Qm4Rn1Sv8Tw3Uy6Vz0Ab5Cd2Ef9Gh"},
	{"a fine-grained GitHub token", `{"env":{"GH_PAT":"github_pat_11ABCDE2F0kQx7LmN4pR9s_T2vW8yZ1aB4cD7eF0gH3jK6mN9pQ2rS5tU8vW1xY4zA7bC0dE3fG6hJ9"}}`, "github_pat_11ABCDE2F0kQx7LmN4pR9s_T2vW8yZ1aB4cD7eF0gH3jK6mN9pQ2rS5tU8vW1xY4zA7bC0dE3fG6hJ9"},
	{"a GitHub app installation token", "Using installation token ghs_Zq8Wm3Xn6Yp1Lk4Jh7Gf0Ds2Ar5Et9Cv3Bn for acme/api", "ghs_Zq8Wm3Xn6Yp1Lk4Jh7Gf0Ds2Ar5Et9Cv3Bn"},
	{"a GitLab token in a CI variable", "CI_JOB: curl --header \"PRIVATE-TOKEN: glpat-Xk7Qm2Lp9Rn4Sv1Tw8U\" https://gitlab.example.com/api/v4/projects", "glpat-Xk7Qm2Lp9Rn4Sv1Tw8U"},
	{"a GitLab token in JSON", `{"gitlab":{"url":"https://gitlab.com","pat":"glpat-Zy3Wx6Vu9Ts2Rq5Po8Nm"}}`, "glpat-Zy3Wx6Vu9Ts2Rq5Po8Nm"},
	{"a Slack bot token", `slack_sdk.WebClient(token="xoxb-2841736501-5938274610283-Qm7Xk2Lp9Rn4Sv1Tw8Uy6Vz")`, "xoxb-2841736501-5938274610283-Qm7Xk2Lp9Rn4Sv1Tw8Uy6Vz"},
	{"a Slack user token in a log", "INFO slack: posting as xoxp-2841736501-2938475610-5938274610283-a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6", "xoxp-2841736501-2938475610-5938274610283-a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"},
	{"a Slack webhook URL in a shell command", `curl -X POST -H 'Content-type: application/json' --data '{"text":"deployed"}' https://hooks.slack.com/services/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`, "Xk7Qm2Lp9Rn4Sv1Tw8Uy6Vz0"},
	{"a Slack webhook URL in JSON", `{"notify":{"slack":"https://hooks.slack.com/services/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"}}`, "aB3cD6eF9gH2iJ5kL8mN1oP4"},
	{"a Stripe live secret key", `stripe.api_key = "sk_live_51Nq8XkLp2Rm9Sv4Tw7Uy1Vz3Ab6Cd0Ef5Gh8Ij2Kl"`, "sk_live_51Nq8XkLp2Rm9Sv4Tw7Uy1Vz3Ab6Cd0Ef5Gh8Ij2Kl"},
	{"a Stripe restricted key in curl", "curl https://api.stripe.com/v1/charges -u rk_live_51Nq8XkLp2Rm9Sv4Tw7Uy1Vz3Ab6Cd0: -d amount=2000", "rk_live_51Nq8XkLp2Rm9Sv4Tw7Uy1Vz3Ab6Cd0"},
	{"a Twilio API key and secret with curl -u", "curl -X GET 'https://api.twilio.com/2010-04-01/Accounts.json' -u SK2f8e1d7c6b5a49382716f5e4d3c2b1a0:Qx7Lm2Kp9Rn4Sv1Tw8Uy6Vz3Ab5Cd0Ef", "Qx7Lm2Kp9Rn4Sv1Tw8Uy6Vz3Ab5Cd0Ef"},
	{"a Twilio API key id", `client = Client("SK2f8e1d7c6b5a49382716f5e4d3c2b1a0", api_secret, account_sid)`, "SK2f8e1d7c6b5a49382716f5e4d3c2b1a0"},
	{"a Twilio auth token in .env", "TWILIO_ACCOUNT_SID=AC0123456789abcdef0123456789abcdef\nTWILIO_AUTH_TOKEN=9f8e7d6c5b4a39281706f5e4d3c2b1a0\n", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"},
	{"a SendGrid key in a header", "sg = SendGridAPIClient('SG.Xk7Qm2Lp9Rn4Sv1Tw8Uy6V.z3Ab5Cd0Ef9Gh2Ij5Kl8Mn1Op4Qr7St0Uv3Wx6Yz9Ab2')", "SG.Xk7Qm2Lp9Rn4Sv1Tw8Uy6V.z3Ab5Cd0Ef9Gh2Ij5Kl8Mn1Op4Qr7St0Uv3Wx6Yz9Ab2"},
	{"a SendGrid key in a log", "smtp: auth as apikey with SG.aB3cD6eF9gH2iJ5kL8mN1o.P4qR7sT0uV3wX6yZ9aB2cD5eF8gH1iJ4kL7mN0oP3q failed", "SG.aB3cD6eF9gH2iJ5kL8mN1o.P4qR7sT0uV3wX6yZ9aB2cD5eF8gH1iJ4kL7mN0oP3q"},
	{"a Hugging Face token in a command", "$ huggingface-cli login --token hf_QxKmLpRnSvTwUyVzAbCdEfGhIjKlMnOpQr", "hf_QxKmLpRnSvTwUyVzAbCdEfGhIjKlMnOpQr"},
	{"a Hugging Face token in Python", `login("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")`, "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"},
	{"an npm token in .npmrc", "//registry.npmjs.org/:_authToken=npm_Xk7Qm2Lp9Rn4Sv1Tw8Uy6Vz3Ab5Cd0Ef9Gh2", "npm_Xk7Qm2Lp9Rn4Sv1Tw8Uy6Vz3Ab5Cd0Ef9Gh2"},
	{"an npm token in a CI log", "Publishing with NODE_AUTH=npm_aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6y", "npm_aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6y"},
	{"a Databricks token in an env file", "DATABRICKS_HOST=https://adb-1234567890123456.7.azuredatabricks.net\nDATABRICKS_TOKEN=dapi0123456789abcdef0123456789abcdef-3\n", "dapi0123456789abcdef0123456789abcdef"},
	{"a Databricks token in a header", `requests.get(url, headers={"Authorization": "Bearer dapif3e2d1c0b9a87654321fedcba9876543"})`, "dapif3e2d1c0b9a87654321fedcba9876543"},
	{"a bare Databricks token in a cfg", "[DEFAULT]\nhost = https://dbc-a1b2c3d4-e5f6.cloud.databricks.com\ndatabricks = dapi9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d\n", "dapi9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d"},
	{"an OpenAI project key", `client = OpenAI(api_key="sk-proj-Xk7Qm2Lp9Rn4Sv1Tw8Uy6Vz3Ab5Cd0Ef9Gh2Ij5Kl8Mn1Op4Qr7St0Uv3")`, "sk-proj-Xk7Qm2Lp9Rn4Sv1Tw8Uy6Vz3Ab5Cd0Ef9Gh2Ij5Kl8Mn1Op4Qr7St0Uv3"},
	{"an OpenAI key in an error", "openai.AuthenticationError: Incorrect API key provided: sk-abc123XYZ789def456GHI012jkl345MNO. You can find your API key at", "sk-abc123XYZ789def456GHI012jkl345MNO"},
	{"an Anthropic key in an env export", "export ANTHROPIC_API_KEY=sk-ant-api03-Xk7Qm2Lp9Rn4Sv1Tw8Uy6Vz3Ab5Cd0Ef9Gh2Ij5Kl8Mn1Op4Qr7St0Uv3Wx6Yz9-AbCdEfAA", "sk-ant-api03-Xk7Qm2Lp9Rn4Sv1Tw8Uy6Vz3Ab5Cd0Ef9Gh2Ij5Kl8Mn1Op4Qr7St0Uv3Wx6Yz9-AbCdEfAA"},
	{"an Anthropic key in a header", "> x-api-key: sk-ant-api03-aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6yZ9-aB2cD5eF8gH1AA\n> anthropic-version: 2023-06-01", "sk-ant-api03-aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6yZ9-aB2cD5eF8gH1AA"},
	{"a JWT in an Authorization header", "> Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiIsIm5hbWUiOiJBbm4iLCJpYXQiOjE3MDAwMDAwMDB9.Qm7Xk2Lp9Rn4Sv1Tw8Uy6Vz0Ab5Cd2Ef9Gh3Ij", "eyJzdWIiOiI0MiIsIm5hbWUiOiJBbm4iLCJpYXQiOjE3MDAwMDAwMDB9"},
	{"a bare JWT in Set-Cookie", "< Set-Cookie: session=eyJhbGciOiJIUzI1NiJ9.eyJ1aWQiOjQyLCJyb2xlIjoiYWRtaW4ifQ.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk; Path=/; HttpOnly; Secure", "eyJ1aWQiOjQyLCJyb2xlIjoiYWRtaW4ifQ"},
	{"a bare JWT in a JSON response", `{"id_token":"x","jwt":"eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJpc3MiOiJodHRwczovL2lkLmV4YW1wbGUuY29tIiwic3ViIjoiYW5uIn0.c2lnbmF0dXJlLWJ5dGVzLWhlcmUtMTIzNDU2"}`, "eyJpc3MiOiJodHRwczovL2lkLmV4YW1wbGUuY29tIiwic3ViIjoiYW5uIn0"},
	{"a JWT in a query string", "GET /ws?access=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib3QiLCJleHAiOjE3MDB9.aGVsbG8td29ybGQtc2lnbmF0dXJl HTTP/1.1", "eyJzdWIiOiJib3QiLCJleHAiOjE3MDB9"},
	{"a basic auth header", "> GET /api HTTP/1.1\n> Authorization: Basic YWRtaW46Q29ycmVjdEhvcnNlQmF0dGVyeQ==\n", "YWRtaW46Q29ycmVjdEhvcnNlQmF0dGVyeQ=="},
	{"a proxy basic auth header", "Proxy-Authorization: Basic cHJveHk6cDRzc3cwcmQ=", "cHJveHk6cDRzc3cwcmQ="},
	{"a bearer token in a curl command", `curl -H "Authorization: Bearer 3f9a7c2e1b8d4a6f0e5c9b2d7a1f8e4c" https://api.example.com/v1/me`, "3f9a7c2e1b8d4a6f0e5c9b2d7a1f8e4c"},
	{"curl -u user:password", "curl -u deploy:Tr0ub4dor&3x https://ci.example.com/job/build", "Tr0ub4dor&3x"},
	{"curl --user user:password", "curl -sS --user admin:Sup3rS3cret! -X POST https://jenkins.example.com/crumbIssuer", "Sup3rS3cret!"},
	{"mysql -pPASS", "mysql -h db.internal -u app -pW1nterIsC0ming! appdb < dump.sql", "W1nterIsC0ming!"},
	{"mysqldump --password=PASS", "mysqldump --user=root --password=R00tP4ss2024 --all-databases > all.sql", "R00tP4ss2024"},
	{"--password PASS", "redis-cli -h cache.internal --password Kp9xQ2mL7vR4 PING", "Kp9xQ2mL7vR4"},
	{"a docker login with a password flag", "docker login registry.example.com --username ci --password Dk7rQ2xL9mP4vT", "Dk7rQ2xL9mP4vT"},
	{"a docker config auth", `{"auths":{"https://index.docker.io/v1/":{"auth":"Y2lib3Q6ZGNrcl9wYXRfWGs3UW0yTHA5Um40U3Yx"}}}`, "Y2lib3Q6ZGNrcl9wYXRfWGs3UW0yTHA5Um40U3Yx"},
	{"a postgres URL", "connecting to postgresql://billing:Pg5ecret-2024@db.internal:5432/billing?sslmode=require", "Pg5ecret-2024"},
	{"a MongoDB SRV URL", `MONGO_URI="mongodb+srv://appuser:M0ng0Pa55w0rd@cluster0.ab1cd.mongodb.net/prod?retryWrites=true"`, "M0ng0Pa55w0rd"},
	{"a Redis URL", "REDIS_URL=rediss://default:Rd7Kq2Lm9Xp4@redis-12345.c1.example.com:6380/0", "Rd7Kq2Lm9Xp4"},
	{"an AMQP URL in a log", "INFO connecting to amqp://guest:Rb8Mq4Lx2Pz7@rabbit.internal:5672/%2f", "Rb8Mq4Lx2Pz7"},
	{"an RSA private key", "$ cat ~/.ssh/id_rsa\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7yQk3Zp9Lm2Xq8Rv4Tn1Sw6Uy0Va5Bc3Df7Eg2Hi9Jk\n-----END RSA PRIVATE KEY-----\n", "MIIEowIBAAKCAQEA7yQk3Zp9Lm2Xq8Rv4Tn1Sw6Uy0Va5Bc3Df7Eg2Hi9Jk"},
	{"an OpenSSH private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"},
	{"an EC private key", "key.pem:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB3kX9q2Lm7Rv4Tn1Sw6Uy0Va5Bc3Df7Eg2Hi9JkoAoGCCqGSM49\n-----END EC PRIVATE KEY-----", "MHcCAQEEIB3kX9q2Lm7Rv4Tn1Sw6Uy0Va5Bc3Df7Eg2Hi9JkoAoGCCqGSM49"},
	{"a PGP private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQVYBGVx3k8BDAC9q2Lm7Rv4Tn1Sw6Uy0Va5Bc3Df7Eg2Hi9Jk\n-----END PGP PRIVATE KEY BLOCK-----", "lQVYBGVx3k8BDAC9q2Lm7Rv4Tn1Sw6Uy0Va5Bc3Df7Eg2Hi9Jk"},
	{"a .env database password", "# .env\nDB_HOST=localhost\nDB_PASSWORD=Xq7!mL2#pR9v\nDB_PORT=5432\n", "Xq7!mL2#pR9v"},
	{"a .env JWT secret", "JWT_SECRET=4f8b2c9e7a1d6f3b0e5c8a2d9f7b4e1c\nPORT=3000", "4f8b2c9e7a1d6f3b0e5c8a2d9f7b4e1c"},
	{"a .env OpenAI key", "OPENAI_API_KEY=sk-Qm7Xk2Lp9Rn4Sv1Tw8Uy6Vz0Ab5Cd2Ef\n", "sk-Qm7Xk2Lp9Rn4Sv1Tw8Uy6Vz0Ab5Cd2Ef"},
	{"a Django secret key", "SECRET_KEY = 'django-insecure-7x$k2!q9m@l4v#r8p&t1w^y6z'", "django-insecure-7x$k2!q9m@l4v#r8p&t1w^y6z"},
	{"a Rails master key in YAML", "production:\n  secret_key_base: 9d2f7a1c4e8b3d6f0a5c9e2b7d1f4a8c3e6b0d5f9a2c7e1b4d8f3a6c0e5b9d2f", "9d2f7a1c4e8b3d6f0a5c9e2b7d1f4a8c3e6b0d5f9a2c7e1b4d8f3a6c0e5b9d2f"},
	{"an OAuth client secret in JSON", `{"web":{"client_id":"1234-abc.apps.googleusercontent.com","client_secret":"GOCSPX-Xk7Qm2Lp9Rn4Sv1Tw8Uy6Vz0Ab5"}}`, "GOCSPX-Xk7Qm2Lp9Rn4Sv1Tw8Uy6Vz0Ab5"},
	{"a refresh token in a token response", `{"access_token":"ya29.a0AfB_byXk7Qm2Lp9Rn4Sv1Tw8","expires_in":3599,"refresh_token":"1//0gXk7Qm2Lp9Rn4Sv1Tw8Uy6Vz0Ab5","token_type":"Bearer"}`, "1//0gXk7Qm2Lp9Rn4Sv1Tw8Uy6Vz0Ab5"},
	{"a password in a YAML config", "database:\n  user: app\n  password: \"v3ry-S3cure-Pa55\"\n  host: db\n", "v3ry-S3cure-Pa55"},
	{"a password in an ODBC connection string", "Server=tcp:acme.database.windows.net,1433;Database=prod;User ID=sa;Password=Sq1Srv!2024x;Encrypt=True;", "Sq1Srv!2024x"},
	{"a Kubernetes secret in a kubectl command", "kubectl create secret generic db --from-literal=password=K8sP4ssw0rd9", "K8sP4ssw0rd9"},
	{"an API key header in a tool call", `{"url":"https://api.example.com/v2/search","headers":{"X-API-Key":"a7f3c9e2b1d84f6a0c5e9b2d7f1a8e4c"}}`, "a7f3c9e2b1d84f6a0c5e9b2d7f1a8e4c"},
	{"a password in a Python call", `conn = psycopg2.connect(host="db", user="app", password="Py7h0nP4ss!")`, "Py7h0nP4ss!"},
	{"an access token in a query string", "GET /graph?fields=id,name&access_token=EAAGm0PX4ZCpsBAKq2Lm7Rv4Tn1Sw6Uy0Va5 HTTP/1.1", "EAAGm0PX4ZCpsBAKq2Lm7Rv4Tn1Sw6Uy0Va5"},
	{"a password under a German key", "db:\n  benutzer: shop\n  Passwort: Lq8zR2vX0nKw", "Lq8zR2vX0nKw"},
	{"a password under a Dutch key in JSON", `{"gebruiker": "shop", "wachtwoord": "Tm4cY7pQ1sDf"}`, "Tm4cY7pQ1sDf"},
	{"a password under a Russian key", "логин: shop\nпароль: Vb9kE3wZ5hJr", "Vb9kE3wZ5hJr"},
	{"a password under a Japanese key", "パスワード: Gx2nU8mA6tLc", "Gx2nU8mA6tLc"},
	{"a password under a Spanish key with an eñe", `{"contraseña": "Wd5rH1qK9vBe"}`, "Wd5rH1qK9vBe"},
	{"a passcode in JSON", `{"lock": "gate-2", "passcode": "Zr7bN4xT2mQy"}`, "Zr7bN4xT2mQy"},
	{"an OCI key pass phrase", "key_file=~/.oci/key.pem\npass_phrase=Hs3vK8pW1dRt\n", "Hs3vK8pW1dRt"},
	{"an sssd bind authtok", "ldap_default_authtok = Pe6wQ9zL2cXa", "Pe6wQ9zL2cXa"},
	{"a pre-shared key in YAML", "wifi:\n  ssid: office\n  psk: 9c41e0b77f2a5d8e36b1c4f09a7d2e58", "9c41e0b77f2a5d8e36b1c4f09a7d2e58"},
	{"a personal access token under _PAT", "export ACME_PAT=4e8c1f7a2b9d06e3c5a8f1b4d7e2a9c6", "4e8c1f7a2b9d06e3c5a8f1b4d7e2a9c6"},
	{"an appid in a query string", "GET https://api.example.com/data/2.5/forecast?q=Oslo&appid=7d2f9a4c1e8b3056d9a2c7f4e1b8d3a6", "7d2f9a4c1e8b3056d9a2c7f4e1b8d3a6"},
	{"a token under a host in Composer's auth.json", `{"bearer": {"pkg.example.net": "Rk4mW9tZ2xQp7LcV3nBd8fHs1yJe6gUa0oKi"}}`, "Rk4mW9tZ2xQp7LcV3nBd8fHs1yJe6gUa0oKi"},
	{"a token under a host in Composer's gitlab-token", `{"gitlab-token": {"git.example.net": "Xw3-pL8qZr2vNc6tYb9m"}}`, "Xw3-pL8qZr2vNc6tYb9m"},
	{"a random user key in JSON", `{"token": "a8k2m5q9w3e7r1t4y6u0i2o5p8s3d7", "user": "u4n7b2v9c5x1z8m3l6k0j4h7g2f9d5", "message": "done"}`, "u4n7b2v9c5x1z8m3l6k0j4h7g2f9d5"},
	{"a key in a provider's own X- header in curl", `curl -H "X-Acme-Team: Fq7Lm2Zx9Rb4Tn8Wc1Vd5K" https://api.example.com/1/events`, "Fq7Lm2Zx9Rb4Tn8Wc1Vd5K"},
	{"a key in a provider's own X- header in a response", "HTTP/1.1 200 OK\nX-Acme-Tenant: Hp3Qs8Vn1Mz6Lc4Xb9Rw2T\nContent-Type: application/json", "Hp3Qs8Vn1Mz6Lc4Xb9Rw2T"},
	{"a key in an X- header that starts the text", "X-Acme-Team: Jd6Kw1Np8Yq3Zr5Tb2Gv7C", "Jd6Kw1Np8Yq3Zr5Tb2Gv7C"},
	{"a login's password after an address", `smtp.login("ops@example.com", "Nw4xQ8zK2pLm")`, "Nw4xQ8zK2pLm"},
	{"a salt defined with a blank after the parenthesis", "define( 'SECURE_AUTH_KEY', 'q7#Lm2!Zx9@Rb4$Tn8%Wc1^Vd5&Ks3*Yp6' );", "q7#Lm2!Zx9@Rb4$Tn8%Wc1^Vd5&Ks3*Yp6"},
	{"a key with no digit passed to a client", "client = acme.Client('md-QwErTyUiOpAsDfGhJkLzXc')", "md-QwErTyUiOpAsDfGhJkLzXc"},
	{"curl -u in a JSON string", `{"command": "curl -u \"ann:Zt6Wq1Lp9Xk3Mv\" https://ci.example.com/api"}`, "Zt6Wq1Lp9Xk3Mv"},
	{"a password element in a JSON string", `{"content": "\u003cpassword\u003eRb5Nx2Kq8Wz4Lt\u003c/password\u003e"}`, "Rb5Nx2Kq8Wz4Lt"},
	{"a password in an add key value element", `<add key="FeedPassword" value="Yc3Tm7Qw1Zp9Lk" />`, "Yc3Tm7Qw1Zp9Lk"},
	{"a secret flag in a JSON array of arguments", `{"argv": ["release", "--api-token", "Gh7Rt2Yw9Lp4Zx6Qm1Nc8Vb"]}`, "Gh7Rt2Yw9Lp4Zx6Qm1Nc8Vb"},
	{"a one-dash cookie flag", "erl -name app@host -setcookie QW7ZX2RT9PL4MN6BV1CK", "QW7ZX2RT9PL4MN6BV1CK"},
	{"the private lines of a PuTTY key", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIGx7\nPrivate-Lines: 1\nAAAAIHk3Lm9Qz2Xw7Rt4Pn8Vb1Yc6Kd0Fs5Gh3J\nPrivate-MAC: 4f0c", "AAAAIHk3Lm9Qz2Xw7Rt4Pn8Vb1Yc6Kd0Fs5Gh3J"},
	{"a webhook key after /hooks/ in a URL", "curl -X POST -d @msg.json https://chat.example.org/hooks/k4m9q2w7e5r8t1y6u3i0o2p5a8", "k4m9q2w7e5r8t1y6u3i0o2p5a8"},
	{"a key after /key/ in a URL", "POST https://maker.example.com/trigger/backup_done/with/key/Xq2-Lm8_Zr4Tn1Wc7Vd", "Xq2-Lm8_Zr4Tn1Wc7Vd"},
	{"a gem source's credentials in Bundler's setting", "export BUNDLE_GEMS__EXAMPLE__NET=7f3a9c21:e84b6d05", "e84b6d05"},
	{"a repository's password in composer config", "composer config --global http-basic.pkg.example.net deploy Vm8Qz3Lx6Tp1", "Vm8Qz3Lx6Tp1"},
	{"a repository's token in poetry config", "poetry config pypi-token.internal pypi-Xz9Lm3Qw7Rt2Vb5Nc8Kd1Hf4", "pypi-Xz9Lm3Qw7Rt2Vb5Nc8Kd1Hf4"},
	{"an Oracle login in sqlplus", "sqlplus hr/Tq5Zw8Lm2Xc@//db.example.net:1521/PROD", "Tq5Zw8Lm2Xc"},
	{"an Oracle login in expdp", "expdp system/Bn6Yk1Pw9Rz@prod schemas=sales dumpfile=sales.dmp", "Bn6Yk1Pw9Rz"},
	{"a random user key in a form field", `curl -F "user=u9d3f6g1h8j2k5l7z4x0c3v6b9n2m5" https://api.example.com/1/messages.json`, "u9d3f6g1h8j2k5l7z4x0c3v6b9n2m5"},
}

// corpusNearMisses look like secrets but are not; redaction should leave
// them as they are.
var corpusNearMisses = []string{
	"commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: Ann Lee <ann@example.com>\nDate:   Tue Nov 24 10:02:11 2026 +0100\n\n    Fix retry loop",
	"Merge: 1a2b3c4 5d6e7f8\n* 9fceb02 (HEAD -> main, origin/main) docs: update README",
	"$ git rev-parse HEAD\nd670460b4b4aece5915caf5c68d12f560a9fe3e4",
	"image: nginx@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	"sha1sum: da39a3ee5e6b4b0d3255bfef95601890afd80709  empty.txt",
	"MD5 (release.tar.gz) = d41d8cd98f00b204e9800998ecf8427e",
	`"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="`,
	"X-Request-Id: 7b0c2f7e-1d2a-4c59-a3e4-0f6b8d9c1e2a",
	`{"request_id":"2f1c6c3e-8b1a-4d5e-9f0a-1b2c3d4e5f60","status":200}`,
	"trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
	"data: SGVsbG8sIHdvcmxkISBUaGlzIGlzIGp1c3QgdGV4dC4=",
	`{"content":"VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==","encoding":"base64"}`,
	"go version go1.22.3 linux/amd64",
	"lookout v1.2.3-rc.1+build.5 (commit 637eea0)",
	"numpy==1.26.4\nrequests>=2.31.0\nurllib3<3",
	"node v20.11.0, npm 10.2.4",
	"Enter password:",
	`{"prompt":"Enter password: ","echo":false}`,
	"[sudo] password for ann: \nSorry, try again.",
	"sudo: a password is required",
	"Password:\n",
	"Forgot your password? Reset it at https://example.com/account/reset",
	"The password must be at least 12 characters long.",
	`<input type="password" name="password_field" autocomplete="current-password">`,
	"password_field = forms.CharField(widget=forms.PasswordInput)",
	"PASSWORD_MIN_LENGTH=12\nPASSWORD_HASHERS=argon2",
	"password_reset_token_expiry = 3600",
	"token_count := len(tokens)",
	`const tokenKey = "token"`,
	"if password == confirm {",
	"Fixtures use a dummy key such as sk-test in prose only.",
	"Set OPENAI_API_KEY to a key that starts with sk-.",
	"Access key ids begin with AKIA or ASIA.",
	"A JWT has three parts: header.payload.signature, each starting like eyJ.",
	`{"token_type":"bearer","expires_in":3600}`,
	`{"max_tokens":1024,"usage":{"prompt_tokens":312,"completion_tokens":88,"total_tokens":400}}`,
	"tokenizer: cl100k_base\ncontext_window: 128000",
	"securitySchemes:\n  bearerAuth:\n    type: http\n    scheme: bearer\n    bearerFormat: JWT",
	"The API uses Bearer authentication over HTTPS.",
	"git clone git@github.com:acme/api.git && cd api",
	"https://example.com:8443/api/v1/users?page=2&per_page=50",
	"http://localhost:3000/callback?code=4/0AfJohXk&state=xyz",
	"https://user@example.com/ and postgres://localhost:5432/app",
	"ssh -p 2222 deploy@bastion.example.com",
	"mkdir -p /tmp/build && cp -r assets /tmp/build",
	"docker run --rm -u 1000:1000 -p 8080:80 nginx:1.25",
	"git push -u origin feature/login",
	"sort -u names.txt | wc -l",
	"mysql -h db -u app -p appdb",
	"psql -h localhost -U postgres -W",
	"echo \"$CR_PAT\" | docker login ghcr.io -u ann --password-stdin",
	"mysqldump --password $DB_PASSWORD appdb",
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ann@laptop",
	"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
	`{"type":"service_account","project_id":"acme-prod","client_email":"ci@acme-prod.iam.gserviceaccount.com"}`,
	"Set-Cookie: theme=dark; Path=/; Max-Age=31536000",
	"kind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque",
	"valueFrom:\n  secretKeyRef:\n    name: db-creds\n    key: password",
	"SKU-48213 Skipped 3 tests; see SG.md and SKETCH.txt",
	"Stripe publishable key: pk_live_51Nq8XkLp2Rm9Sv4Tw7Uy1Vz3 (safe to ship)",
	"from huggingface_hub import hf_hub_download",
	"npm_config_cache=/tmp/npm-cache npm ci",
	"TWILIO_ACCOUNT_SID is your AC... account id",
	"The rapid API returns dapi-style ids only for tokens.",
	"user:pass@host is the form, with a scheme in front",
	`{"oauth": true, "sso": "okta"}`,
	"passwordless login enabled for 3 users",
	"secretary: Jane Doe",
	"ERROR TokenExpiredError: jwt expired at 2026-11-27T04:00:00Z",
	`{"password": null, "api_key": 42}`,
	"const app = initializeApp({ appId: \"1:482913756102:web:3c9a1f7e2b8d4c6a05f1e9\" });",
	`{"apiKey": "REPLACE_WITH_KEY", "region": "eu"}`,
	"db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6231386437653931",
	"DATABASE_URL=mysql://user:password@localhost:3306/app",
	"SECRET_STORE_PROJECT=billing-prod-204518",
	"arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/api/token-Xy12Ab",
	`<input type="hidden" name="csrf_token" value="Jk3nP8qR2sT7vW0xY5zA9bC4dE1fG6hL">`,
	`<script>const stripe = Stripe("pk_test_51Hq2Lm7Rv4Tn1Sw6Uy0Va5Bc3Df7Eg2Hi9Jk");</script>`,
	"X-Atlassian-Token: no-check",
	`{"user": "507f1f77bcf86cd799439011", "role": "admin"}`,
	`{"user": "build-service-account", "scopes": ["read"]}`,
	"x-amz-id-2: Kq9v8Zf7S0XkJd3bQ/1xH2ly+Yy4l0T8mC5gP3aWnR7sE6uI\nx-amz-request-id: 4T8W2K9P7Q1X3M5Z",
	"X-Amz-Cf-Id: Zt5Qk8Lm2Xw9Rb4Tn1Vc7Yp3Gs6Hd0Jf_Ka-Ue==\nX-Served-By: cache-fra-etou8220072-FRA",
	`{"headers": {"X-Request-Id": "9c2e7a4f-1b3d-4e6a-8f0c-2d4b6e8a0c1e", "X-Frame-Options": "DENY"}}`,
	"GET https://api.github.com/repos/acme/api/hooks/48213957/deliveries",
	`{"argv": ["deploy", "--env", "prod", "--key-file", "/etc/keys/deploy.pem"]}`,
	"erl -sname node1 -setcookie $ERLANG_COOKIE -detached",
	`notify("ops@example.com", "disk almost full on db-2")`,
	"Generated HMAC: 0a2b1998992efc83a1d6e95217a69bfc32fb5500fab9824f0c29423775e5ca44",
	`print(f"Using key: {key}, token: {api_token}")`,
	"\tFEATURE_4WAY_HANDSHAKE_STA_PSK = C.FEATURE_4WAY_HANDSHAKE_STA_PSK",
	"Set-Cookie: _ga=GA1.2.1480293751.1733512044; Domain=.example.com; Path=/",
	"bundle config set --local path vendor/bundle",
	"sqlplus -s / as sysdba @scripts/check.sql",
}

func TestSecretsCorpusIsLargeEnough(t *testing.T) {
	if len(corpusSecrets) < 60 || len(corpusNearMisses) < 60 {
		t.Fatalf("corpus too small: %d secrets, %d near-misses", len(corpusSecrets), len(corpusNearMisses))
	}
	for _, tc := range corpusSecrets {
		if !strings.Contains(tc.text, tc.secret) {
			t.Errorf("%s: the secret is not in the text", tc.name)
		}
	}
}

func TestSecretsLeakNoSecretOfTheCorpus(t *testing.T) {
	r := recorder.Secrets()
	leaks := 0
	for _, tc := range corpusSecrets {
		if out := r.Redact(tc.text); strings.Contains(out, tc.secret) {
			leaks++
			t.Errorf("%s leaks: %q", tc.name, out)
		}
	}
	t.Logf("%d secrets, %d leaked", len(corpusSecrets), leaks)
}

func TestSecretsChangeAtMostTwoNearMissesOfTheCorpus(t *testing.T) {
	r := recorder.Secrets()
	changed := 0
	for _, in := range corpusNearMisses {
		if out := r.Redact(in); out != in {
			changed++
			t.Logf("near-miss changed: %q -> %q", in, out)
		}
	}
	t.Logf("%d near-misses, %d changed", len(corpusNearMisses), changed)
	if changed > 2 {
		t.Errorf("%d near-misses changed, want at most 2", changed)
	}
}

func TestRecordedToolResultsLeakNoSecretOfTheCorpus(t *testing.T) {
	ctx := context.Background()
	rec, sink := newMem(t, nil)
	run, err := rec.StartRun(ctx, recorder.RunInfo{})
	require.NoError(t, err)
	for _, tc := range corpusSecrets {
		require.NoError(t, run.ToolEnded(ctx, recorder.ToolEnded{Name: "shell", Result: tc.text}))
	}
	require.NoError(t, run.End(ctx, recorder.RunEnded{Outcome: recorder.OutcomeCompleted}))
	i := 0
	for _, r := range sink.Records() {
		if p, ok := r.Payload.(*recorder.ToolEnded); ok {
			assert.NotContains(t, p.Result, corpusSecrets[i].secret, corpusSecrets[i].name)
			i++
		}
	}
	assert.Equal(t, len(corpusSecrets), i)
}

func TestSecretsPreScanAgreesWithTheFullDetectorOnTheCorpus(t *testing.T) {
	for _, tc := range corpusSecrets {
		assert.Equal(t, recorder.RedactFromStart(tc.text), recorder.Secrets().Redact(tc.text), tc.name)
	}
	for _, in := range corpusNearMisses {
		assert.Equal(t, recorder.RedactFromStart(in), recorder.Secrets().Redact(in), in)
	}
}
