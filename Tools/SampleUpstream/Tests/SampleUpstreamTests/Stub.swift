import Testing
import AsyncHTTPClient
@Test func stub() {}
