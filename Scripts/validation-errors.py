"""Prints, as JSON, the validation errors real web frameworks write for the same bad order.

FastAPI (Pydantic), Django REST framework and Flask with webargs/marshmallow each validate an
order with an e-mail, a nested address and a list of items; each is sent the same invalid body
through the framework's own test client (no server, no network) and what it answers is printed:
{"fastapi": [{"case": ..., "status": ..., "contentType": ..., "body": ...}], ...}.

Run by CourierTests (ValidationFrameworkTests) with the frameworks Scripts/install-test-tools.sh
installs; `python3 Scripts/validation-errors.py` prints the same by hand.
"""
import json
import sys

BAD_ORDER = {
    "email": "not-an-email",
    "address": {"city": "Lisboa", "zip_code": "12"},
    "items": [{"name": "Catuperoni", "quantity": 1}, {"name": "Calabresa", "quantity": "many"}],
}


def answer(case, response, body):
    return {"case": case, "status": response.status_code,
            "contentType": response.headers.get("Content-Type", ""), "body": body}


def fastapi_cases():
    from fastapi import FastAPI, HTTPException
    from fastapi.testclient import TestClient
    from pydantic import BaseModel, EmailStr, Field

    class Address(BaseModel):
        city: str
        zip_code: str = Field(min_length=5)

    class Item(BaseModel):
        name: str
        quantity: int

    class Order(BaseModel):
        email: str = Field(pattern=r"^[^@]+@[^@]+$")
        address: Address
        items: list[Item]

    app = FastAPI()

    @app.post("/orders")
    def create(order: Order, page: int = 1):
        return {}

    @app.post("/closed")
    def closed():
        raise HTTPException(status_code=400, detail="Orders are closed today.")

    client = TestClient(app)
    bad = client.post("/orders?page=first", json=BAD_ORDER)
    closed_response = client.post("/closed")
    return [answer("order", bad, bad.json()), answer("detail", closed_response, closed_response.json())]


def drf_cases():
    import django
    from django.conf import settings

    settings.configure(
        DEBUG=False, SECRET_KEY="courier-tests", ROOT_URLCONF=__name__, ALLOWED_HOSTS=["*"],
        INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "rest_framework"],
        MIDDLEWARE=[], DATABASES={},
        REST_FRAMEWORK={"UNAUTHENTICATED_USER": None, "DEFAULT_AUTHENTICATION_CLASSES": [],
                        "DEFAULT_PERMISSION_CLASSES": []})
    django.setup()
    from django.urls import path
    from rest_framework import serializers, views
    from rest_framework.response import Response
    from rest_framework.test import APIClient

    class AddressSerializer(serializers.Serializer):
        city = serializers.CharField()
        zip_code = serializers.CharField(min_length=5)

    class ItemSerializer(serializers.Serializer):
        name = serializers.CharField()
        quantity = serializers.IntegerField()

    class OrderSerializer(serializers.Serializer):
        email = serializers.EmailField()
        address = AddressSerializer()
        items = ItemSerializer(many=True)

        def validate(self, data):
            raise serializers.ValidationError("Orders are closed today.")

    class OrderView(views.APIView):
        def post(self, request):
            serializer = OrderSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            return Response({})

    module = sys.modules[__name__]
    module.urlpatterns = [path("orders", OrderView.as_view())]
    client = APIClient()
    bad = client.post("/orders", BAD_ORDER, format="json")
    good_fields = dict(BAD_ORDER, email="ana@example.com", address={"city": "Lisboa", "zip_code": "12345"},
                       items=[{"name": "Catuperoni", "quantity": 1}])
    closed = client.post("/orders", good_fields, format="json")
    malformed = client.generic("POST", "/orders", "{not json", content_type="application/json")
    return [answer("order", bad, bad.json()), answer("nonField", closed, closed.json()),
            answer("detail", malformed, malformed.json())]


def flask_cases():
    from flask import Flask, jsonify
    from marshmallow import Schema, fields, validate
    from webargs.flaskparser import use_args

    class AddressSchema(Schema):
        city = fields.Str(required=True)
        zip_code = fields.Str(required=True, validate=validate.Length(min=5))

    class ItemSchema(Schema):
        name = fields.Str(required=True)
        quantity = fields.Int(required=True)

    class OrderSchema(Schema):
        email = fields.Email(required=True)
        address = fields.Nested(AddressSchema, required=True)
        items = fields.List(fields.Nested(ItemSchema), required=True)

    app = Flask(__name__)

    @app.post("/orders")
    @use_args(OrderSchema(), location="json")
    @use_args({"page": fields.Int()}, location="query")
    def create(order, query):
        return {}

    # webargs' documented handler: the messages, keyed by location, under "errors".
    @app.errorhandler(422)
    @app.errorhandler(400)
    def handle_error(error):
        headers = error.data.get("headers", None)
        messages = error.data.get("messages", ["Invalid request."])
        if headers:
            return jsonify({"errors": messages}), error.code, headers
        return jsonify({"errors": messages}), error.code

    client = app.test_client()
    bad = client.post("/orders?page=first", json=BAD_ORDER)
    return [answer("order", bad, bad.get_json())]


if __name__ == "__main__":
    print(json.dumps({"fastapi": fastapi_cases(), "djangoRestFramework": drf_cases(), "flaskWebargs": flask_cases()}, indent=1))
