// Lint rules for the whole repository: typescript-eslint's recommended set,
// tuned to the code as it is written here. Formatting is dprint's job
// (dprint.json), not ESLint's.
import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  {
    ignores: ["**/node_modules/**", "**/dist/**", "**/*.d.ts", "**/test/fixtures/**", "**/.artifacts/**"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts", "**/*.mjs", "**/*.js"],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        queueMicrotask: "readonly",
        URL: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        fetch: "readonly",
        structuredClone: "readonly",
        performance: "readonly",
      },
    },
    rules: {
      // Names that start with "_" are unused on purpose (a position in a signature, a field left out of a copy).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true }],
      // Terminal output is filtered for control characters by regular expressions that name them.
      "no-control-regex": "off",
    },
  },
  {
    // Tests reach into wire bodies and fakes where a precise type would only restate the fixture.
    files: ["**/test/**/*.ts", "**/bench/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
)
