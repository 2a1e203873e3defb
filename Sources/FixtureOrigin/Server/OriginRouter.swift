import BenchCore
import Foundation
import NIOHTTP1

/// A complete request as the handler collected it.
struct OriginRequest {
    var method: HTTPMethod
    var uri: String
    var headers: HTTPHeaders
    var body: [UInt8]

    /// The target without its query string.
    var path: String {
        uri.firstIndex(of: "?").map { String(uri[..<$0]) } ?? uri
    }

    var isHead: Bool { method == .HEAD }

    /// The origin-form of a request target (`/videos/clear/master.m3u8?a=1`). A client
    /// that sends through a forward proxy writes the absolute-form
    /// (`GET http://origin.example/videos/…`), which a server must accept too (RFC 9112
    /// §3.2.2): its scheme and authority are dropped. Any other target is kept as it is.
    static func originForm(_ target: String) -> String {
        let lowered = target.prefix(8).lowercased()
        let schemeLength = lowered.hasPrefix("http://") ? 7 : lowered.hasPrefix("https://") ? 8 : 0
        guard schemeLength > 0 else { return target }
        let rest = target.dropFirst(schemeLength)
        guard let start = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let tail = String(rest[start...])
        return tail.hasPrefix("?") ? "/" + tail : tail
    }
}

/// Turns a request into a `ResponsePlan`: control API, license endpoints, then content
/// with validators and ranges, then the fault. Stateless apart from the services it
/// calls; runs on the connection's event loop. Content is looked up beforehand
/// (`OriginServices.lookup`, which may take a generator thread) and handed in.
struct OriginRouter {
    let services: OriginServices

    /// Whether the request is for the control API (which faults never touch).
    func isControl(_ request: OriginRequest) -> Bool {
        services.configuration.controlAPIEnabled && request.path.hasPrefix("/_control/")
    }

    /// Whether `request` is answered from content, so the caller must look it up first.
    func needsContent(_ request: OriginRequest) -> Bool {
        guard request.method == .GET || request.isHead, !isControl(request) else { return false }
        let catalog = services.configuration.catalog
        return ![catalog.certificatePath, catalog.licensePath, services.configuration.renewalPath].contains(request.path)
    }

    /// The plan for `request`, with `decision` (already drawn) applied; `content` is the
    /// lookup of its path when `needsContent(request)`.
    func plan(for request: OriginRequest, decision: FaultDecision?, content: ContentLookup? = nil) -> ResponsePlan {
        if let decision, decision.fault.answersInstead, licenseEndpoint(of: request) != nil {
            // The fault answers instead of the license server, which must not issue a
            // license the client never gets; it records the request as rejected.
            let code = if case .status(let code, _) = decision.fault { code } else { 200 }
            noteRejection(request, status: code, reason: "fault rule '\(decision.ruleID)'")
            var plan = ResponsePlan.error(HTTPResponseStatus(statusCode: code))
            plan.apply(decision, isHead: request.isHead)
            return plan
        }
        var plan = route(request, decision: decision, content: content)
        if let decision { plan.apply(decision, isHead: request.isHead) }
        return plan
    }

    /// The license endpoint `request` is for, if any.
    func licenseEndpoint(of request: OriginRequest) -> LicenseEndpoint? {
        let catalog = services.configuration.catalog
        switch request.path {
        case catalog.certificatePath: return .certificate
        case catalog.licensePath: return .license
        case services.configuration.renewalPath: return .renewal
        default: return nil
        }
    }

    /// Records, at the license server, a request to one of its endpoints that the HTTP
    /// layer answers itself (405, 408, 413, 501, a status fault); does nothing for other paths.
    func noteRejection(_ request: OriginRequest, status: Int, reason: String) {
        guard let endpoint = licenseEndpoint(of: request) else { return }
        services.licenseServer.recordRejection(
            endpoint: endpoint, method: request.method.rawValue, path: request.uri, status: status, reason: reason)
    }

    private func route(_ request: OriginRequest, decision: FaultDecision?, content lookup: ContentLookup?) -> ResponsePlan {
        if case .RAW(let name) = request.method {
            // A method the parser knows but HTTPMethod has no case for (e.g. SOURCE).
            noteRejection(request, status: 501, reason: "method \(name) not implemented")
            return .error(.notImplemented)
        }
        let path = request.path
        if isControl(request) { return control(request) }
        let catalog = services.configuration.catalog
        switch path {
        case catalog.certificatePath:
            guard request.method == .GET || request.method == .POST else { return notAllowed(request, "GET, POST") }
            return license(services.licenseServer.handleCertificate())
        case catalog.licensePath:
            guard request.method == .POST else { return notAllowed(request, "POST") }
            return license(services.licenseServer.handleLicense(body: request.body))
        case services.configuration.renewalPath:
            guard request.method == .POST else { return notAllowed(request, "POST") }
            return license(services.licenseServer.handleRenewal(body: request.body))
        default:
            guard request.method == .GET || request.isHead else { return notAllowed(request, "GET, HEAD") }
            switch lookup ?? .notFound {
            case .found(let resource):
                return content(request, resource, malformed: decision?.fault == .malformedPlaylist)
            case .redirect(let status, let location):
                var plan = ResponsePlan.error(HTTPResponseStatus(statusCode: status))
                plan.headers.replaceOrAdd(name: "Location", value: location)
                if request.isHead { plan.body = [] }
                return plan
            case .notFound:
                return .error(.notFound)
            case .failed(let error):
                return .error(.internalServerError, "\(error)")
            }
        }
    }

    private func content(_ request: OriginRequest, _ resource: ContentResource, malformed: Bool) -> ResponsePlan {
        var resource = resource
        if malformed, resource.contentType == ContentResource.playlistType {
            let broken = HTTPFault.corrupt(playlist: String(decoding: resource.bytes, as: UTF8.self))
            resource = ContentResource(
                contentType: resource.contentType, bytes: Array(broken.utf8), lastModified: resource.lastModified)
        }
        let length = resource.bytes.count
        let selection = RangeSelection.select(
            range: request.headers.first(name: "Range"), ifRange: request.headers.first(name: "If-Range"),
            etag: resource.etag, lastModified: resource.lastModified, length: length)
        var plan: ResponsePlan
        switch selection {
        case .full:
            plan = ResponsePlan(status: .ok, body: resource.bytes, contentType: resource.contentType)
        case .partial(let range):
            plan = ResponsePlan(status: .partialContent, body: Array(resource.bytes[range]), contentType: resource.contentType)
            plan.headers.replaceOrAdd(name: "Content-Range", value: "bytes \(range.lowerBound)-\(range.upperBound)/\(length)")
        case .unsatisfiable:
            plan = ResponsePlan(status: .rangeNotSatisfiable)
            plan.headers.replaceOrAdd(name: "Content-Range", value: "bytes */\(length)")
        }
        plan.headers.replaceOrAdd(name: "ETag", value: resource.etag)
        plan.headers.replaceOrAdd(name: "Last-Modified", value: resource.lastModifiedHeader)
        plan.headers.replaceOrAdd(name: "Accept-Ranges", value: "bytes")
        if request.isHead { plan.body = [] }  // Content-Length stays the true length
        return plan
    }

    private func license(_ outcome: LicenseOutcome) -> ResponsePlan {
        ResponsePlan(
            status: HTTPResponseStatus(statusCode: outcome.status), body: outcome.body, contentType: ContentResource.jsonType)
    }

    private func control(_ request: OriginRequest) -> ResponsePlan {
        switch request.path {
        case "/_control/background":
            guard request.method == .POST else { return notAllowed(request, "POST") }
            let text = String(decoding: request.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let flag = Bool(text) else { return .error(.badRequest, "body must be true or false") }
            services.licenseServer.setAppInBackground(flag)
            var plan = ResponsePlan(status: .noContent)
            plan.headers.remove(name: "Content-Length")  // RFC 9110 §8.6: none on 204
            return plan
        default:
            return .error(.notFound)
        }
    }

    /// 405 with `Allow`; recorded at the license server when the path is one of its.
    private func notAllowed(_ request: OriginRequest, _ allow: String) -> ResponsePlan {
        noteRejection(request, status: 405, reason: "method \(request.method.rawValue) not allowed; use \(allow)")
        var plan = ResponsePlan.error(.methodNotAllowed)
        plan.headers.replaceOrAdd(name: "Allow", value: allow)
        return plan
    }
}
