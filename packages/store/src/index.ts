export * as SessionStore from "./SessionStore.js"
export * as StoreError from "./StoreError.js"
