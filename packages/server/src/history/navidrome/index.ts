export { makeNavidromeSource } from "./NavidromeSource.js"
