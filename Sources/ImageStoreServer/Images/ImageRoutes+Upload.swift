import Foundation
import Hummingbird

extension ImageRoutes {
    /// A refused upload and the answer that says why.
    struct Refusal: Error {
        let status: HTTPResponse.Status
        let message: String

        var response: Response {
            (try? jsonResponse(ErrorBody(error: message), status: status)) ?? Response(status: status)
        }
    }

    /// Reads a multipart upload: `title`, `description` and an `image` part, checked.
    func read(_ request: Request) async -> Result<Upload, Refusal> {
        let parts: [MultipartIntake.Part]
        do {
            parts = try await MultipartIntake.read(request, keepLimit: maximumImageSize)
        } catch MultipartIntake.Failure.notMultipart {
            return .failure(Refusal(status: .unsupportedMediaType, message: "Send the image as multipart/form-data."))
        } catch MultipartIntake.Failure.tooLarge(_, let limit) {
            return .failure(Refusal(status: .contentTooLarge, message: "The image is larger than the \(limit)-byte limit."))
        } catch MultipartIntake.Failure.malformed(let reason) {
            return .failure(Refusal(status: .badRequest, message: "The upload could not be read: \(reason)."))
        } catch {
            return .failure(Refusal(status: .badRequest, message: "The upload could not be read."))
        }
        var upload = Upload()
        for part in parts {
            switch part.name {
            case "title": upload.title = part.text
            case "description": upload.description = part.text
            case "image":
                guard let kind = ImageKind(sniffing: part.body) else {
                    return .failure(Refusal(
                        status: .unsupportedMediaType,
                        message: "The file \(part.fileName ?? "sent") is not an image (PNG, JPEG, GIF or WebP)."))
                }
                upload.image = (part.body, part.fileName ?? "image", kind)
            default: continue
            }
        }
        return .success(upload)
    }
}
