package harness

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// MongoDB is the MongoDB server kind (docs/container.md, "Tests"). No image
// is built here: Debian (bookworm, the base of scripts/test-images.sh)
// packages no MongoDB server since MongoDB's licence became the SSPL, and no
// MongoDB-compatible server either. A container runs only from an image
// named in HOOP_TEST_MONGODB_IMAGE (e.g. mongo:8.0 with a registry); the
// conformance suite otherwise embeds FerretDB (conformance/mongodb). The
// URL is mongodb://host:port/?directConnection=true; it pings with the Go
// driver.
var MongoDB = UpstreamKind{
	Name:     "MongoDB",
	URLEnv:   "HOOP_TEST_MONGODB_URL",
	ImageEnv: "HOOP_TEST_MONGODB_IMAGE",
	NoImage:  "Debian bookworm packages no MongoDB server (nor a MongoDB-compatible one) since the SSPL licence, so scripts/test-images.sh builds none",
	Port:     "27017/tcp",
	URL:      func(hostport string) string { return "mongodb://" + hostport + "/?directConnection=true" },
	Ping: func(ctx context.Context, u string) error {
		c, err := mongo.Connect(options.Client().ApplyURI(u))
		if err != nil {
			return err
		}
		defer func() { _ = c.Disconnect(context.Background()) }()
		return c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
	},
}
