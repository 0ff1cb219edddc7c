import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: end-to-end suites start real servers; keep parallelism modest.
    maxWorkers: 2,
  },
});
